// The summary table wraps a long value onto more lines (the page grows) instead of cutting it off.
import { wrapWords } from '../../../reports/specs/summary';

test('wrapWords: lines of at most N characters broken at spaces, nothing lost', () => {
  const words = Array.from({ length: 300 }, (_, i) => 'x'.repeat(1 + ((i * 7919) % 13)));
  const text = words.join(' ');
  for (const n of [13, 20, 95]) {
    const lines = wrapWords(text, n);
    expect(lines.join(' ')).toBe(text);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(n);
    // greedy: the next line's first word would not have fitted
    for (let i = 0; i + 1 < lines.length; i++)
      expect(lines[i].length + 1 + lines[i + 1].split(' ')[0].length).toBeGreaterThan(n);
  }
  expect(wrapWords('a-very-long-word b', 5)).toEqual(['a-very-long-word', 'b']);
});
