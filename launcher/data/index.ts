// Data preparation for distributed training (issue #8): LUNA16 CSVs -> per-rank shards.
export { forEachCsvRecord, parseCsv, csvField, csvRecord } from './csv';
export { parseCandidates, parseAnnotations, CANDIDATE_COLUMNS, ANNOTATION_COLUMNS, type LunaTable } from './luna-table';
export { planShards, assignRanks, chooseValidation, seededOrder, positiveBalance, type SeriesStat, type ShardPlan, type PositiveBalance } from './assign';
export { shardFiles, shardName, checkShardOptions, DEFAULT_VAL_FRACTION, type ShardOptions, type ShardResult } from './shard';
export { readShardManifest, verifyShardDir, shardFilesOf, MANIFEST_NAME, MANIFEST_VERSION, type ShardManifest } from './manifest';
export { formatShardSummary } from './summary';
export { syntheticLuna, LUNA16_SHAPE, type SyntheticOptions } from './synthetic';
export { benchShardFullSize, type ShardBenchResult } from './bench';
