// Data preparation for distributed training (issue #8): LUNA16 CSVs -> per-rank shards.
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
