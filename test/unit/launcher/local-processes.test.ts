// The local executor never signals a pid that is not the recorded process any more.
import { spawn } from 'child_process';
import { parseProcStat, type ProcStat } from '../../../core';
import {
  isRunning,
  jobGroupMembers,
  processRef,
  signalJobGroup,
} from '../../../launcher/executors/local-processes';

const stat = (pid: number, pgrp: number, start: number, state = 'S'): ProcStat => ({
  pid,
  state,
  pgrp,
  start,
});

describe('parseProcStat', () => {
  test('reads state, pgrp and start time after the last parenthesis of the command name', () => {
    const fields = ['S', '1', '4242', '4242', ...Array(15).fill('0'), '987654', '0'];
    expect(parseProcStat(`4243 (a) b (c)) ${fields.join(' ')}\n`)).toEqual({
      pid: 4243,
      state: 'S',
      pgrp: 4242,
      start: 987654,
    });
  });

  test('malformed text is undefined', () => {
    expect(parseProcStat('')).toBeUndefined();
    expect(parseProcStat('12 (x) S 1')).toBeUndefined();
  });
});

describe('a recorded pid is used only while it is the same process', () => {
  test('isRunning: same start time, not a zombie', () => {
    const now = (s: ProcStat | undefined) => () => s;
    expect(isRunning({ pid: 7, start: 100 }, now(stat(7, 7, 100)))).toBe(true);
    expect(isRunning({ pid: 7, start: 100 }, now(stat(7, 7, 555)))).toBe(false); // pid reused
    expect(isRunning({ pid: 7, start: 100 }, now(stat(7, 7, 100, 'Z')))).toBe(false);
    expect(isRunning({ pid: 7, start: 100 }, now(undefined))).toBe(false);
  });

  test('a group whose leader pid is another process now is never signalled', () => {
    const kill = jest.fn();
    const procs = () => [stat(50, 50, 900), stat(51, 50, 901)];
    expect(signalJobGroup({ pid: 50, start: 100 }, 'SIGKILL', procs, kill)).toBe(false);
    expect(kill).not.toHaveBeenCalled();
  });

  test('a group whose leader is gone is signalled while members started after it live', () => {
    const kill = jest.fn();
    expect(jobGroupMembers({ pid: 50, start: 100 }, () => [stat(51, 50, 120), stat(52, 50, 90)])).toEqual([
      stat(51, 50, 120),
    ]);
    expect(signalJobGroup({ pid: 50, start: 100 }, 'SIGTERM', () => [stat(51, 50, 120)], kill)).toBe(true);
    expect(kill).toHaveBeenCalledWith(-50, 'SIGTERM');
    expect(signalJobGroup({ pid: 50, start: 100 }, 'SIGTERM', () => [stat(51, 50, 120, 'Z')], kill)).toBe(
      false,
    );
  });

  test('on a real process: a wrong start time leaves it alone, the right one ends it', async () => {
    const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    const exited = new Promise((r) => child.on('exit', (_c, s) => r(s)));
    try {
      const ref = processRef(child.pid!)!;
      expect(ref.start).toBeGreaterThan(0);
      expect(signalJobGroup({ pid: ref.pid, start: ref.start + 1 }, 'SIGKILL')).toBe(false);
      expect(isRunning(ref)).toBe(true);
      expect(signalJobGroup(ref, 'SIGKILL')).toBe(true);
      expect(await exited).toBe('SIGKILL');
    } finally {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGKILL');
    }
  });
});
