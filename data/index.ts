// Data preparation for distributed training (issues #8, #20): LUNA16 CSVs -> per-rank shards, synthetic
// CSVs and CT series, per-node staging plans.
export { forEachCsvRecord, parseCsv, csvField, csvRecord } from './csv';
export {
  parseCandidates,
  parseAnnotations,
  CANDIDATE_COLUMNS,
  ANNOTATION_COLUMNS,
  type LunaTable,
} from './luna-table';
export {
  planShards,
  assignRanks,
  chooseValidation,
  seededOrder,
  type SeriesStat,
  type ShardPlan,
} from './assign';
export { positiveBalance, type PositiveBalance } from './balance';
export { indexSeriesFiles } from './data-files';
export {
  shardFiles,
  shardName,
  checkShardOptions,
  DEFAULT_VAL_FRACTION,
  type ShardOptions,
  type ShardResult,
} from './shard';
export {
  readShardManifest,
  sha256,
  verifyShardDir,
  shardFilesOf,
  MANIFEST_NAME,
  MANIFEST_VERSION,
  type ShardManifest,
} from './manifest';
export { formatShardSummary } from './summary';
export { syntheticLuna, LUNA16_SHAPE, type SyntheticOptions } from './synthetic';
export { syntheticCt, CT_DEFAULTS, type CtOptions } from './synthetic-ct';
export { writeSyntheticCt, type WrittenCt } from './synthetic-ct-files';
export { planStaging, planNodeStaging, type StagePlan, type NodeStage } from './stage-plan';
