// Child process of memory.test.ts: renders the synthetic run and prints its peak RSS as JSON.
import { renderSynthetic } from '../../../../bench/synthetic-report';

const [out, ranks, points] = process.argv.slice(2);
let peak = process.memoryUsage().rss;
const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
const started = Date.now();
const { files } = renderSynthetic(out, { ranks: Number(ranks), points: Number(points) });
clearInterval(timer);
peak = Math.max(peak, process.memoryUsage().rss);
process.stdout.write(
  JSON.stringify({ files, peakRssMb: Math.round(peak / 2 ** 20), ms: Date.now() - started }) + '\n',
);
