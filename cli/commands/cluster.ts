// track-launch cluster: what the partitions offer (nodes, states, CPUs, memory, GPUs, limits).
import { CommandModule } from 'yargs';
import { fetchClusterFacts, formatCluster, selectPartitions } from '../../launcher';
import { invalidOption } from '../../core';
import { printJson } from '../output';

type Args = { partition?: string; json?: boolean };

export const clusterCommand: CommandModule<object, Args> = {
  command: 'cluster',
  describe: 'Show the partitions with their nodes, states, CPUs, memory, GPUs and time limits',
  builder: (y) =>
    y
      .option('partition', {
        alias: 'p',
        type: 'string',
        describe: 'Only these partitions (comma-separated)',
      })
      .example('$0 cluster', 'every partition, as a table')
      .example(
        '$0 cluster -p gpu --json',
        'one partition, as JSON (ClusterFacts; null means unlimited)',
      ) as never,
  handler: async (argv) => {
    let facts = await fetchClusterFacts();
    if (argv.partition) {
      const names = String(argv.partition)
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const unknown = names.find((n) => !facts.partitions.some((p) => p.name === n));
      if (unknown !== undefined)
        throw invalidOption(
          'partition',
          unknown,
          `partitions of this cluster: ${facts.partitions.map((p) => p.name).join(', ')}`,
        );
      facts = selectPartitions(facts, names);
    }
    if (argv.json) printJson(facts);
    else process.stdout.write(formatCluster(facts) + '\n');
  },
};
