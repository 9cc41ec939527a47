// Legends from 1 to 1,024 ranks and 1 to 128 hosts: rendered to PDF (synthetic runs of 8 ranks a host,
// the last host 30 % slower) and read back with pdftotext. Up to 16 ranks the legend lists them, up
// to 8 hosts it lists hosts; beyond, it names the hosts that stand out and counts the others, so
// every host is either named or counted, and every entry is whole.
import { renderSynthetic } from '../../../bench/synthetic-report';
import { NAMED_HOSTS, standoutHosts } from '../../../reports/specs/rank-lines';
import { pdfText, tmpDir } from './helpers/check-output';

jest.setTimeout(120_000);

const host = (h: number) => `node${String(h).padStart(3, '0')}`;
/** `node007 (8 ranks: 48-55)`, as the legend names host 7 of 8 ranks each. */
const hostEntry = (h: number, perHost: number) =>
  `${host(h)} (${perHost} ranks: ${(h - 1) * perHost}-${h * perHost - 1})`;

/** The text of the report's pages, by the title each starts with. */
function pages(ranks: number, perHost: number): { loss: string; stragglers: string } {
  const out = tmpDir(`legend-${ranks}`);
  const { files } = renderSynthetic(out, { ranks, points: 200, ranksPerHost: perHost, formats: ['pdf'] });
  const text = pdfText(files[0]);
  const loss = text.slice(text.indexOf('loss per rank:'), text.indexOf('Stragglers:'));
  return { loss, stragglers: text.slice(text.indexOf('Stragglers:')) };
}

test.each([
  [1, 1],
  [8, 8],
  [16, 4],
])('%i ranks (%i a host): every rank listed by name and host', (ranks, perHost) => {
  const { loss } = pages(ranks, perHost);
  for (let r = 0; r < ranks; r++) expect(loss).toContain(`rank ${r} (${host(Math.floor(r / perHost) + 1)})`);
  expect(loss).not.toMatch(/other hosts/);
});

test('64 ranks on 8 hosts: every host listed with its ranks', () => {
  const { loss } = pages(64, 8);
  for (let h = 1; h <= 8; h++) expect(loss).toContain(hostEntry(h, 8));
  expect(loss).not.toMatch(/other hosts/);
});

test.each([
  [256, 32],
  [1024, 128],
])(
  '%i ranks on %i hosts: the hosts that stand out named, the others counted, none missing',
  (ranks, hosts) => {
    const { loss, stragglers } = pages(ranks, 8);
    for (const page of [loss, stragglers]) {
      const named = [...page.matchAll(/\bnode(\d{3}) \(8 ranks: (\d+)-(\d+)\)/g)].map((m) => Number(m[1]));
      // each entry whole: its ranks are the host's own
      for (const m of page.matchAll(/\bnode(\d{3}) \(8 ranks: (\d+)-(\d+)\)/g))
        expect(m[0]).toBe(hostEntry(Number(m[1]), 8));
      const unique = [...new Set(named)];
      expect(unique.length).toBe(NAMED_HOSTS);
      const others = /(\d+) other hosts \((\d+) ranks\), grey/.exec(page);
      expect(others && [Number(others[1]), Number(others[2])]).toEqual([
        hosts - NAMED_HOSTS,
        ranks - NAMED_HOSTS * 8,
      ]);
    }
    // the slow host stands out in the time between steps: the stragglers page names it
    expect(stragglers).toContain(hostEntry(hosts, 8));
  },
);

test('standoutHosts: the hosts whose mean last value is furthest from the median, ties by name', () => {
  const hosts = ['a', 'a', 'b', 'b', 'c', 'd', 'e'];
  const last = [1, 1, 1.1, 0.9, 5, NaN, 0.2];
  expect([...standoutHosts(hosts, last, 2)].sort()).toEqual(['c', 'e']);
  // a host with no finite value comes last; equal distances go by name
  expect([...standoutHosts(['x', 'y', 'z'], [1, 1, NaN], 2)].sort()).toEqual(['x', 'y']);
});
