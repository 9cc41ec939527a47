// logs: line times paired with their lines, the merge in time order, and the three formats.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { formatLine, lineText } from '../../../cli/logs/format';
import { compareLines, type LogLine, mergeByTime, Ring } from '../../../cli/logs/line';
import { FollowedFile } from '../../../cli/logs/followed-file';
import { LineSource } from '../../../cli/logs/line-source';
import { MergedLogs } from '../../../cli/logs/merged';

const line = (
  rank: number,
  t: number | null,
  text: string,
  stream: LogLine['stream'] = 'stdout',
): LogLine => ({
  rank,
  stream,
  time: t,
  sortTime: t ?? -Infinity,
  bytes: Buffer.from(text),
});

describe('formatLine', () => {
  it('labels like srun --label, stderr marked, a missing newline added', () => {
    expect(formatLine(line(3, 1, 'loss 0.5\n'), 'labelled').toString()).toBe('[rank 3] loss 0.5\n');
    expect(formatLine(line(0, 1, 'Traceback', 'stderr'), 'labelled').toString()).toBe(
      '[rank 0 stderr] Traceback\n',
    );
  });
  it('keeps raw lines byte-exact', () => {
    const bytes = Buffer.from([0xff, 0x61, 0x0d, 0x0a]);
    expect(formatLine({ ...line(1, 1, ''), bytes }, 'raw')).toEqual(bytes);
  });
  it('writes one JSON object per line: rank, stream, time, text without its line end (\\n, \\r\\n, \\r)', () => {
    const out = formatLine(line(2, 1712345678.123456, 'a "b"\tc\r\n', 'stderr'), 'json').toString();
    expect(out.endsWith('\n')).toBe(true);
    expect(JSON.parse(out)).toEqual({
      rank: 2,
      stream: 'stderr',
      time: 1712345678.123456,
      text: 'a "b"\tc',
    });
    expect(JSON.parse(formatLine(line(0, null, 'x'), 'json').toString()).time).toBeNull();
  });
  it('decodes invalid UTF-8 with replacement characters', () => {
    expect(lineText({ ...line(0, 0, ''), bytes: Buffer.from([0x61, 0xff, 0x0a]) })).toBe('a\ufffd');
  });
});

describe('mergeByTime', () => {
  it('orders by time, then rank, then stdout before stderr, keeping each list in order', () => {
    const a = [line(1, 1, 'a1'), line(1, 3, 'a3'), line(1, 3, 'a3b')];
    const b = [line(0, 2, 'b2'), line(0, 3, 'b3')];
    const c = [line(0, 3, 'c3', 'stderr')];
    expect(mergeByTime([a, b, c]).map((l) => l.bytes.toString())).toEqual([
      'a1',
      'b2',
      'b3',
      'c3',
      'a3',
      'a3b',
    ]);
    expect(compareLines(line(0, 1, ''), line(0, 1, ''))).toBe(0);
  });
});

describe('Ring', () => {
  it('keeps the last n in order', () => {
    const r = new Ring<number>(3);
    for (let i = 1; i <= 7; i++) r.push(i);
    expect(r.toArray()).toEqual([5, 6, 7]);
    const z = new Ring<number>(0);
    z.push(1);
    expect(z.toArray()).toEqual([]);
  });
});

describe('reading rank logs', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-unit-logs-'));
    fs.mkdirSync(path.join(dir, 'logs'), { mode: 0o700 });
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string) =>
    fs.appendFileSync(path.join(dir, 'logs', name), text, { mode: 0o600 });
  const texts = (ls: LogLine[]) => ls.map((l) => l.bytes.toString().trimEnd());

  it('pairs each line with its time, and a time written late is skipped, not shifted', async () => {
    write('rank-0.out', 'one\ntwo\n');
    write('rank-0.out.ts', '10.5\n');
    const src = new LineSource(
      dir,
      0,
      'stdout',
      path.join(dir, 'logs/rank-0.out'),
      path.join(dir, 'logs/rank-0.out.ts'),
    );
    expect((await src.next(false))?.time).toBe(10.5);
    const two = await src.next(false);
    expect([two?.time, two?.sortTime]).toEqual([null, 10.5]); // not written yet: sorts after its predecessor
    write('rank-0.out', 'three\npart');
    write('rank-0.out.ts', '11.0\n12.0\n'); // 11.0 was two's: dropped; 12.0 is three's
    const three = await src.next(false);
    expect([three?.bytes.toString(), three?.time]).toEqual(['three\n', 12]);
    expect(await src.next(false)).toBeUndefined(); // a partial line waits for its newline
    expect((await src.next(true))?.bytes.toString()).toBe('part'); // ... unless the job ended
  });

  it('merges every rank and stream in time order, and tails the last lines', async () => {
    write('rank-0.out', 'r0 a\nr0 b\n');
    write('rank-0.out.ts', '1\n4\n');
    write('rank-1.out', 'r1 a\nr1 b\n');
    write('rank-1.out.ts', '2\n3\n');
    write('rank-1.err', 'r1 err\n');
    write('rank-1.err.ts', '3.5\n');
    const merged = new MergedLogs(dir, { streams: ['stdout', 'stderr'] });
    const all: LogLine[] = [];
    expect(await merged.drain(true, (l) => void all.push(l))).toBe(5);
    expect(texts(all)).toEqual(['r0 a', 'r1 a', 'r1 b', 'r1 err', 'r0 b']);
    const again = new MergedLogs(dir, { streams: ['stdout', 'stderr'] });
    expect(texts(await again.tail(2, true))).toEqual(['r1 err', 'r0 b']);
    // following: only what was added since, including a rank that started later
    write('rank-0.out', 'r0 c\n');
    write('rank-0.out.ts', '6\n');
    write('rank-2.out', 'r2 a\n');
    write('rank-2.out.ts', '5\n');
    const more: LogLine[] = [];
    await again.drain(false, (l) => void more.push(l));
    expect(texts(more)).toEqual(['r2 a', 'r0 c']);
  });

  it('reads only the ranks and streams asked for', async () => {
    write('rank-0.out', 'zero\n');
    write('rank-1.out', 'one\n');
    write('rank-1.err', 'oops\n');
    const one = new MergedLogs(dir, { ranks: [1], streams: ['stderr'] });
    expect(texts(await one.tail(10, true))).toEqual(['oops']);
  });

  describe('a followed log that is truncated or replaced', () => {
    const file = () => path.join(dir, 'logs', 'rank-0.out');
    const follow = () => {
      const said: string[] = [];
      const merged = new MergedLogs(dir, { ranks: [0], streams: ['stdout'] }, (f) => void said.push(f));
      const drain = async () => {
        const got: LogLine[] = [];
        await merged.drain(false, (l) => void got.push(l));
        return texts(got);
      };
      return { said, drain };
    };

    it('truncated and rewritten: the new lines are printed, the truncation said once', async () => {
      write('rank-0.out', 'old 1\nold 2\nold 3\n');
      const { said, drain } = follow();
      expect(await drain()).toEqual(['old 1', 'old 2', 'old 3']);
      fs.truncateSync(file(), 0);
      expect(await drain()).toEqual([]);
      expect(said).toEqual([file()]);
      write('rank-0.out', 'new 1\n');
      expect(await drain()).toEqual(['new 1']);
      write('rank-0.out', 'new 2\n');
      expect(await drain()).toEqual(['new 2']);
      expect(said).toEqual([file()]);
    });

    it('rotated (moved away, a new file in its place, longer than the old): the new lines from their start', async () => {
      write('rank-0.out', 'old 1\n');
      write('rank-0.out.ts', '1\n');
      const { said, drain } = follow();
      expect(await drain()).toEqual(['old 1']);
      fs.renameSync(file(), `${file()}.1`);
      fs.renameSync(`${file()}.ts`, `${file()}.ts.1`);
      expect(await drain()).toEqual([]); // between the move and the new file: nothing yet, nothing said
      expect(said).toEqual([]);
      write('rank-0.out', 'new 1 is longer\nnew 2\n');
      write('rank-0.out.ts', '7\n8\n');
      expect(await drain()).toEqual(['new 1 is longer', 'new 2']);
      expect(said).toEqual([file()]);
    });

    it('a line left unended by the truncation is printed, not dropped', async () => {
      write('rank-0.out', 'whole\nhalf');
      const { said, drain } = follow();
      expect(await drain()).toEqual(['whole']);
      fs.writeFileSync(file(), 'x\n');
      expect(await drain()).toEqual(['half', 'x']);
      expect(said).toHaveLength(1);
    });

    it('FollowedFile (logs --rank, --job-output): bytes from the new content, restarted said', async () => {
      write('rank-0.out', 'abcdef');
      const said: string[] = [];
      const src = new FollowedFile(dir, file(), (f) => void said.push(f));
      expect((await src.read(100)).bytes.toString()).toBe('abcdef');
      fs.writeFileSync(file(), 'xy');
      expect(await src.read(100)).toEqual({ bytes: Buffer.from('xy'), restarted: true });
      expect(await src.read(100)).toEqual({ bytes: Buffer.alloc(0), restarted: false });
      expect(said).toEqual([file()]);
    });
  });
});
