// The two MLflow servers the ingestion benchmark measures, one after the other, and their warm-up.
import * as fs from 'fs';
import * as path from 'path';
import { ingestRunDir, syncRunDir } from '../tracking-plugin';
import type { BenchOptions } from './common';
import { makeRunDir, startPgServer, startServer, type Server } from './ingest-fixture';
import { ceiling } from './ingest-modes';

export interface ServerKind {
  name: string;
  label: string;
  start: (o: BenchOptions) => Server;
  /** The targets (ours >= 1.5x Python's best, >= 90 % of the ceiling with runs) are set on this server:
   *  its workers answer requests side by side, as a production server's do. */
  targets: boolean;
}

export const SERVERS: ServerKind[] = [
  {
    name: 'sqlite',
    label: 'sqlite, 1 uvicorn worker (test/mlflow/up)',
    start: (o) => startServer(o.tmp),
    targets: false,
  },
  {
    name: 'postgresql',
    label: 'PostgreSQL 15 (fsync on), mlflow server --workers 4 (bench/pg-server.sh)',
    start: () => startPgServer(4),
    targets: true,
  },
];

/** A fresh server answers its first requests slowly (lazy imports, cold pages, each worker's and each
 *  database connection's first use): warm it up with WARM_SENDS ceiling sends at 8 in flight and a
 *  small ingest of its own before anything is measured, so the first mode measured is not penalised.
 *  Before it, SETTLE_MS: for a while after it answers, a new MLflow server is still starting its job
 *  consumers (huey processes), which take a core. */
const WARM_SENDS = 4;
const SETTLE_MS = 20_000;

export async function warmUp(uri: string, tmp: string): Promise<void> {
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const dir = path.join(tmp, 'ingest-warmup');
  makeRunDir(dir, 2, 3000);
  await ingestRunDir(dir, { offline: true, graceMs: 0 });
  for (let i = 0; i < WARM_SENDS; i++)
    await ceiling(path.join(dir, 'tracking', 'spool'), uri, `bench-warmup-c${i}-${Date.now()}`, 8, new Map());
  await syncRunDir(dir, { trackingUri: uri, experiment: `bench-warmup-${Date.now()}`, graceMs: 0 });
  fs.rmSync(dir, { recursive: true, force: true });
}
