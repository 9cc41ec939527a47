// One error policy for the run directory's JSON files (core/rundir/json.ts).
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  firstFailedRank,
  readAllRankFacts,
  readJobRecord,
  readJobRecordIfAny,
  readRankFacts,
  runPaths,
  updateJobRecord,
  writeJobRecord,
  type JobRecord,
} from '../../../core';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'tl-json-'));
const facts = (rank: number, over: object = {}) => ({
  version: 1,
  rank,
  local_rank: 0,
  node_rank: rank,
  world_size: 3,
  local_world_size: 1,
  host: `n${rank}`,
  ip: '10.0.0.1',
  iface: 'eth0',
  master_addr: '10.0.0.1',
  master_port: 29500,
  job_id: '7',
  restart: 0,
  launcher: 'srun',
  started_at: 1,
  ...over,
});
const record = (): JobRecord => ({
  version: 1,
  name: 'x',
  executor: 'local',
  submitted_at: 1,
  plan_digest: 'd',
  spec: {
    nodes: 1,
    tasks_per_node: 1,
    gpus_per_node: 0,
    world_size: 1,
    launcher: 'srun',
    backend: 'gloo',
    modules: [],
    command: ['true'],
    env_keys: [],
    params: {},
  },
});

test('job.json: missing is NOT_FOUND where required, undefined where optional', () => {
  const dir = tmp();
  expect(() => readJobRecord(dir)).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  expect(readJobRecordIfAny(dir)).toBeUndefined();
});

test('job.json: malformed or of another version is a RUN_DIR error naming it', () => {
  const dir = tmp();
  fs.writeFileSync(runPaths(dir).jobJson, '{"version": 1,');
  expect(() => readJobRecordIfAny(dir)).toThrow(
    expect.objectContaining({
      code: 'RUN_DIR',
      message: expect.stringMatching(/job\.json is not valid JSON/),
    }),
  );
  fs.writeFileSync(runPaths(dir).jobJson, '{"version": 2}');
  expect(() => readJobRecord(dir)).toThrow(/has version 2; this track-launch reads version 1/);
});

test('job.json: written, read back and updated', () => {
  const dir = tmp();
  const rec = record();
  writeJobRecord(dir, rec);
  expect(fs.readFileSync(runPaths(dir).jobJson, 'utf8')).toBe(JSON.stringify(rec, null, 2) + '\n');
  updateJobRecord(dir, (r) => ({ ...r, restarts: 1 }));
  expect(readJobRecord(dir).restarts).toBe(1);
  expect(fs.readdirSync(dir)).toEqual(['job.json']); // no temporary file left
});

test('rank facts: one reader; half-written is not there yet, another version is refused', () => {
  const dir = tmp();
  fs.mkdirSync(runPaths(dir).logsDir);
  expect(readAllRankFacts(dir)).toEqual([]);
  fs.writeFileSync(runPaths(dir).rankFacts(1), JSON.stringify(facts(1, { exit_code: 3, ended_at: 5 })));
  fs.writeFileSync(runPaths(dir).rankFacts(0), JSON.stringify(facts(0)));
  fs.writeFileSync(runPaths(dir).rankFacts(2), '{"version": 1, "ra');
  expect(readRankFacts(dir, 2)).toBeUndefined();
  expect(readRankFacts(dir, 7)).toBeUndefined();
  expect(readAllRankFacts(dir).map((f) => f.rank)).toEqual([0, 1]);
  expect(firstFailedRank(readAllRankFacts(dir))?.rank).toBe(1);
  fs.writeFileSync(runPaths(dir).rankFacts(2), JSON.stringify({ ...facts(2), version: 9 }));
  expect(() => readAllRankFacts(dir)).toThrow(/rank-2\.json has version 9/);
});

test('job.json and rank facts not of their schema: RUN_DIR naming the file and the field', () => {
  const dir = tmp();
  fs.mkdirSync(runPaths(dir).logsDir);
  fs.writeFileSync(
    runPaths(dir).jobJson,
    JSON.stringify({ ...record(), spec: { ...record().spec, command: 'x' } }),
  );
  expect(() => readJobRecord(dir)).toThrow(
    expect.objectContaining({
      code: 'RUN_DIR',
      message: `${runPaths(dir).jobJson}: spec.command is "x"; it must be a list (each a string)`,
      details: { file: runPaths(dir).jobJson, field: 'spec.command' },
    }),
  );
  fs.writeFileSync(runPaths(dir).rankFacts(0), JSON.stringify(facts(0, { exit_code: '1' })));
  expect(() => readRankFacts(dir, 0)).toThrow(
    `${runPaths(dir).rankFacts(0)}: exit_code is "1"; it must be a whole number`,
  );
});

test('rank facts: an unchanged file is not read again; a replaced, rewritten or removed one is', () => {
  const dir = tmp();
  fs.mkdirSync(runPaths(dir).logsDir);
  const file = runPaths(dir).rankFacts(0);
  const replace = (value: object) => {
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(value));
    fs.renameSync(`${file}.tmp`, file); // as the bootstrap writes it
  };
  replace(facts(0));
  const first = readRankFacts(dir, 0);
  expect(first?.host).toBe('n0');
  expect(readRankFacts(dir, 0)).toBe(first); // the same object: not read and parsed again
  expect(Object.isFrozen(first)).toBe(true); // shared by every caller, so nobody may change it
  replace(facts(0, { ended_at: 9, exit_code: 0 }));
  expect(readRankFacts(dir, 0)).toMatchObject({ ended_at: 9, exit_code: 0 });
  // rewritten in place, same size: its change time moves
  const before = fs.readFileSync(file, 'utf8');
  const after = before.replace('"n0"', '"n9"');
  expect(after.length).toBe(before.length);
  fs.writeFileSync(file, after);
  const t = new Date(Date.now() + 5000);
  fs.utimesSync(file, t, t); // a clock tick apart, as any later write is
  expect(readRankFacts(dir, 0)?.host).toBe('n9');
  fs.rmSync(file);
  expect(readRankFacts(dir, 0)).toBeUndefined();
  fs.symlinkSync(path.join(dir, 'elsewhere.json'), file);
  expect(() => readRankFacts(dir, 0)).toThrow(/symbolic link/);
});
