import * as fc from 'fast-check';
import { availability } from '../../../launcher/cluster/facts';
import { describeGpus, gpuCount, gpuTypes, parseGres } from '../../../launcher/cluster/gres';
import { compressHostlist, expandHostlist } from '../../../launcher/cluster/hostlist';
import {
  factsFromScontrol,
  parseScontrolNodes,
  parseScontrolPartitions,
} from '../../../launcher/cluster/parse-scontrol';
import { factsFromSinfo, parseSinfo } from '../../../launcher/cluster/parse-sinfo';
import { fixture } from './helpers';

describe('gres strings', () => {
  test.each([
    ['(null)', [], 0],
    ['', [], 0],
    ['gpu:4', [{ name: 'gpu', count: 4 }], 4],
    ['gpu:a100:4(S:0-1)', [{ name: 'gpu', type: 'a100', count: 4, binding: 'S:0-1' }], 4],
    [
      'gpu:a100:2,gpu:v100:2',
      [
        { name: 'gpu', type: 'a100', count: 2 },
        { name: 'gpu', type: 'v100', count: 2 },
      ],
      4,
    ],
    [
      'gpu:a100:4(S:0-1),shard:8',
      [
        { name: 'gpu', type: 'a100', count: 4, binding: 'S:0-1' },
        { name: 'shard', count: 8 },
      ],
      4,
    ],
    [
      'gpu:tesla:2(S:0,2),mps:100K',
      [
        { name: 'gpu', type: 'tesla', count: 2, binding: 'S:0,2' },
        { name: 'mps', count: 102400 },
      ],
      2,
    ],
    ['gpu:1g.10gb:7', [{ name: 'gpu', type: '1g.10gb', count: 7 }], 7],
    [
      'gpu:nvidia_h100_80gb_hbm3:8(S:0-1)',
      [{ name: 'gpu', type: 'nvidia_h100_80gb_hbm3', count: 8, binding: 'S:0-1' }],
      8,
    ],
    ['gpu:a100:2(IDX:0-1)', [{ name: 'gpu', type: 'a100', count: 2, binding: 'IDX:0-1' }], 2],
    ['gpu', [{ name: 'gpu', count: 1 }], 1],
  ])('%j', (text, entries, gpus) => {
    expect(parseGres(text)).toEqual(entries);
    expect(gpuCount(parseGres(text))).toBe(gpus);
  });

  test('types and the short form for people', () => {
    const mixed = parseGres('gpu:a100:2,gpu:v100:2');
    expect(gpuTypes(mixed)).toEqual({ a100: 2, v100: 2 });
    expect(describeGpus(mixed)).toBe('2 x a100 + 2 x v100');
    expect(describeGpus(parseGres('gpu:4'))).toBe('4');
    expect(describeGpus(parseGres('(null)'))).toBe('-');
  });

  test('never throws on arbitrary text', () => {
    fc.assert(fc.property(fc.string(), (s) => Array.isArray(parseGres(s))));
  });
});

describe('host lists', () => {
  test.each([
    ['tlnode[1-3]', ['tlnode1', 'tlnode2', 'tlnode3']],
    ['gpu-[01-03,07]', ['gpu-01', 'gpu-02', 'gpu-03', 'gpu-07']],
    ['login1,tlnode[2-3]', ['login1', 'tlnode2', 'tlnode3']],
    ['r[1-2]n[01-02]', ['r1n01', 'r1n02', 'r2n01', 'r2n02']],
    ['(null)', []],
    ['single', ['single']],
  ])('%s', (text, names) => expect(expandHostlist(text)).toEqual(names));

  test('compress is the inverse for people', () => {
    expect(compressHostlist(['gpu-01', 'gpu-02', 'gpu-03', 'gpu-05', 'login'])).toBe('gpu-[01-03,05],login');
    expect(compressHostlist(['tlnode1'])).toBe('tlnode1');
    expect(compressHostlist([])).toBe('');
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 999 }), { minLength: 1, maxLength: 40 }),
        (nums) => {
          const names = nums.map((n) => `n${String(n).padStart(3, '0')}`).sort();
          expect(expandHostlist(compressHostlist(names))).toEqual(names);
        },
      ),
    );
  });
});

describe('node states', () => {
  test.each([
    ['IDLE', 'idle'],
    ['MIXED', 'mixed'],
    ['ALLOCATED', 'allocated'],
    ['IDLE+DRAIN', 'drained'],
    ['MIXED+DRAIN', 'draining'],
    ['DOWN+NOT_RESPONDING', 'down'],
    ['IDLE+NOT_RESPONDING', 'down'],
    ['down*', 'down'],
    ['drained', 'drained'],
    ['draining', 'draining'],
    ['idle~', 'idle'],
    ['mixed', 'mixed'],
    ['RESERVED', 'reserved'],
    ['COMPLETING', 'completing'],
    ['what', 'unknown'],
  ])('%s -> %s', (raw, want) => expect(availability(raw)).toBe(want));
});

describe('scontrol show node/partition -o (recorded on the test cluster)', () => {
  const facts = factsFromScontrol(
    fixture('testcluster.scontrol-show-partition.txt'),
    fixture('testcluster.scontrol-show-node.txt'),
  );

  test('three nodes with the configured CPUs and memory, no GPUs', () => {
    expect(facts.nodes.map((n) => [n.name, n.cpus, n.memoryMiB, n.gpus, n.partitions])).toEqual([
      ['tlnode1', 4, 2000, 0, ['debug']],
      ['tlnode2', 4, 2000, 0, ['debug']],
      ['tlnode3', 4, 2000, 0, ['debug']],
    ]);
    expect(facts.nodes[0].features).toEqual([]);
  });

  test('the debug partition: default, unlimited', () => {
    expect(facts.partitions).toEqual([
      expect.objectContaining({
        name: 'debug',
        isDefault: true,
        state: 'UP',
        nodes: ['tlnode1', 'tlnode2', 'tlnode3'],
        maxTimeS: null,
        maxNodes: null,
        totalCpus: 12,
        maxMemPerNodeMiB: null,
      }),
    ]);
  });

  test('the multi-line form (without -o) reads the same', () => {
    const multi = fixture('testcluster.scontrol-show-node.txt')
      .trim()
      .split('\n')
      .map((l) => l.replace(/ (CPUAlloc|RealMemory|State|Partitions|CfgTRES)=/g, '\n   $1='))
      .join('\n\n');
    expect(parseScontrolNodes(multi)).toEqual(
      parseScontrolNodes(fixture('testcluster.scontrol-show-node.txt')),
    );
  });
});

describe('scontrol on a GPU cluster (hand-written)', () => {
  const nodes = parseScontrolNodes(fixture('gpucluster.scontrol-show-node.txt'));
  const parts = parseScontrolPartitions(fixture('gpucluster.scontrol-show-partition.txt'));

  test('gres, states, reasons', () => {
    const by = Object.fromEntries(nodes.map((n) => [n.name, n]));
    expect(by['gpu-01']).toMatchObject({
      cpus: 128,
      cpusAlloc: 64,
      memoryMiB: 515000,
      allocMemMiB: 256000,
      gpus: 4,
      availability: 'mixed',
      partitions: ['gpu', 'gpu-long'],
      features: ['a100', 'ib'],
    });
    expect(by['gpu-01'].gres).toEqual([{ name: 'gpu', type: 'a100', count: 4, binding: 'S:0-1' }]);
    expect(by['gpu-03']).toMatchObject({
      availability: 'drained',
      reason: 'GPU 2 fell off the bus [admin@2026-12-01T20:05:12]',
    });
    expect(by['gpu-04']).toMatchObject({ gpus: 4, availability: 'down', cpus: 64, memoryMiB: 256000 });
    expect(by['cpu-002']).toMatchObject({ gpus: 7 });
    expect(by['cpu-001'].reason).toBeUndefined();
  });

  test('partition limits', () => {
    const by = Object.fromEntries(parts.map((p) => [p.name, p]));
    expect(by.cpu).toMatchObject({
      isDefault: true,
      maxTimeS: 86400,
      defaultTimeS: 3600,
      maxNodes: null,
      nodes: ['cpu-001', 'cpu-002'],
    });
    expect(by.gpu).toMatchObject({
      isDefault: false,
      maxTimeS: 2 * 86400,
      defaultTimeS: 1800,
      maxNodes: 3,
      maxCpusPerNode: 96,
      maxMemPerNodeMiB: 480000,
    });
    expect(by.gpu.nodes).toEqual(['gpu-01', 'gpu-02', 'gpu-03', 'gpu-04']);
    expect(by['gpu-long']).toMatchObject({ state: 'DOWN', maxTimeS: 7 * 86400, maxCpusPerNode: null });
    expect(by['gpu-long'].defaultTimeS).toBeUndefined();
  });
});

describe('sinfo --Node with SINFO_FORMAT', () => {
  test('recorded on the test cluster', () => {
    const rows = parseSinfo(fixture('testcluster.sinfo.txt'));
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatchObject({
      node: 'tlnode1',
      partition: 'debug',
      isDefault: true,
      cpus: 4,
      memoryMiB: 2000,
      gres: '(null)',
      timeLimit: 'infinite',
    });
    const facts = factsFromSinfo(fixture('testcluster.sinfo.txt'));
    expect(facts.source).toBe('sinfo');
    expect(facts.partitions).toEqual([
      expect.objectContaining({
        name: 'debug',
        isDefault: true,
        maxTimeS: null,
        nodes: ['tlnode1', 'tlnode2', 'tlnode3'],
      }),
    ]);
  });

  test('a GPU cluster: one node in several partitions, limits per partition', () => {
    const facts = factsFromSinfo(fixture('gpucluster.sinfo.txt'));
    expect(facts.partitions.map((p) => [p.name, p.isDefault, p.maxTimeS, p.nodes.length])).toEqual([
      ['cpu', true, 86400, 2],
      ['gpu', false, 172800, 4],
      ['gpu-long', false, 604800, 3],
    ]);
    const gpu01 = facts.nodes.find((n) => n.name === 'gpu-01')!;
    expect(gpu01).toMatchObject({ gpus: 4, partitions: ['gpu', 'gpu-long'], features: ['a100', 'ib'] });
    expect(facts.nodes.find((n) => n.name === 'gpu-04')).toMatchObject({ gpus: 4, availability: 'down' });
  });
});
