// Data preparation: LUNA16 CSVs -> per-rank shards, synthetic CSVs and CT series, per-node staging plans.
export { shardFiles, DEFAULT_VAL_FRACTION, type ShardResult } from './shard';
export { readShardManifest, verifyShardDir } from './manifest';
export { formatShardSummary } from './summary';
export { syntheticLuna, LUNA16_SHAPE } from './synthetic';
export { CT_DEFAULTS } from './synthetic-ct';
export { writeSyntheticCt } from './synthetic-ct-files';
export { planStaging } from './stage-plan';
