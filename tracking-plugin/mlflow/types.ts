// The parts of MLflow's REST API 2.0 entities that track-launch reads.
import type { KeyValue } from './batch';

export type RunStatus = 'RUNNING' | 'SCHEDULED' | 'FINISHED' | 'FAILED' | 'KILLED';

export interface Experiment {
  experiment_id: string;
  name: string;
  artifact_location?: string;
  lifecycle_stage?: string;
  tags?: KeyValue[];
}

export interface RunInfo {
  run_id: string;
  experiment_id: string;
  run_name?: string;
  status: RunStatus;
  start_time?: number;
  end_time?: number;
  artifact_uri?: string;
  lifecycle_stage?: string;
}

export interface Run {
  info: RunInfo;
  data: {
    metrics?: { key: string; value: unknown; timestamp: number; step: number }[];
    params?: KeyValue[];
    tags?: KeyValue[];
  };
}

export interface FileInfo {
  path: string;
  is_dir: boolean;
  file_size?: number;
}
