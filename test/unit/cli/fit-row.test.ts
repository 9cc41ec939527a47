// fitRow: a progress line on one terminal row (pure).
import { fitRow } from '../../../cli/output';

describe('fitRow', () => {
  it('keeps a line that fits, cuts a longer one to the width ending in …', () => {
    expect(fitRow('job 12: RUNNING', 20)).toBe('job 12: RUNNING');
    expect(fitRow('job 12: RUNNING', 15)).toBe('job 12: RUNNING');
    expect(fitRow('job 12: RUNNING', 10)).toBe('job 12: R…');
  });
  it('turns control characters (a multi-line server error, an escape) into spaces', () => {
    expect(fitRow('retrying: 500\nInternal\r\x1b[2J', 80)).toBe('retrying: 500 Internal  [2J');
  });
  it('counts characters, not UTF-16 units, and never exceeds the width', () => {
    for (const width of [1, 2, 5, 59, 199]) {
      for (const text of ['', 'x'.repeat(width), 'é😀'.repeat(width), 'a\tb'.repeat(width)]) {
        const row = fitRow(text, width);
        expect([...row].length).toBeLessThanOrEqual(width);
        expect([...row].filter((c) => c.charCodeAt(0) < 32)).toEqual([]);
        if ([...text].length > width) expect(row.endsWith('…')).toBe(true);
        // what is kept is the start of the line
        expect(text.replace(/\t/g, ' ').startsWith(row.replace(/…$/, ''))).toBe(true);
      }
    }
  });
});
