// What one ingest sends, as pump.ts streams (pure): the parent's aggregates, each rank's points, each
// rank's own GPU samples and each node's samples, every one with its own spool and cursor.
import type { Stream } from './pump';
import type { SpoolStage } from './spool-stage';

/** The streams of the spool; `parent` and `rank(r)` give (or create) the run each one goes to. */
export function spoolStreams(
  spool: SpoolStage,
  parent: () => Promise<string | undefined>,
  rank: (r: string) => () => Promise<string | undefined>,
): Stream[] {
  const files = spool.files;
  return [
    { id: 'parent', run: parent, file: files.parentSpool, size: spool.state.parent.spool },
    ...Object.entries(spool.state.ranks).map(([r, c]) => ({
      id: `rank-${r}`,
      run: rank(r),
      file: files.rankSpool(r),
      size: c.spool,
    })),
    // the rank's own GPU: a stream of its own (own spool, own acknowledged offset), same run
    ...Object.entries(spool.state.ranks)
      .filter(([, c]) => c.sys)
      .map(([r, c]) => ({
        id: `system-${r}`,
        run: rank(r),
        file: files.systemSpool(r),
        size: c.sys?.spool ?? 0,
      })),
    // each node's samples, once, on the parent run: one stream per node (spool-stage.ts)
    ...Object.entries(spool.state.nodes ?? {}).map(([host, c]) => ({
      id: `node-${host}`,
      run: parent,
      file: files.nodeSystemSpool(host),
      size: c.spool,
    })),
  ];
}
