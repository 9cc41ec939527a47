// doctor's checks of this machine: Node's version, and node-canvas drawing text with the reports' font.
import type { DoctorCheck } from '../../launcher';
import { fail, failFrom, ok } from '../../launcher';
import { reports } from '../lazy';

export const MIN_NODE_MAJOR = 20;

export function nodeCheck(version: string = process.versions.node): DoctorCheck {
  const major = Number(version.split('.')[0]);
  return major >= MIN_NODE_MAJOR
    ? ok('node', `Node.js ${version}`)
    : fail(
        'node',
        `Node.js ${version} is older than ${MIN_NODE_MAJOR}; install Node.js ${MIN_NODE_MAJOR} or newer`,
        'USAGE',
      );
}

/** Pixels with ink on a small canvas after drawing `text`. */
function inkedPixels(text: string, family: string): number {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by reports() just before
  const { createCanvas } = require('canvas') as typeof import('canvas');
  const canvas = createCanvas(240, 40);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#000';
  ctx.font = `20px "${family}"`;
  ctx.fillText(text, 8, 28);
  const data = ctx.getImageData(0, 0, 240, 40).data;
  let inked = 0;
  for (let i = 3; i < data.length; i += 4) if (data[i] > 0) inked++;
  return inked;
}

export function canvasCheck(env: NodeJS.ProcessEnv = process.env): DoctorCheck[] {
  let r: ReturnType<typeof reports>;
  try {
    r = reports();
  } catch (err) {
    // A native module that does not load throws a plain Error: that is exactly what this check finds.
    return [
      fail(
        'canvas',
        `node-canvas does not load (${(err as Error).message.split('\n')[0]}); install its libraries (Debian: libcairo2 libpango-1.0-0 libpangocairo-1.0-0 libjpeg62-turbo libgif7 librsvg2-2) and run \`npm rebuild canvas\``,
        'REPORT',
      ),
    ];
  }
  let font: string;
  try {
    font = r.ensureFont(env);
  } catch (err) {
    return [ok('canvas', 'node-canvas loads'), failFrom('fonts', err)];
  }
  const inked = inkedPixels('Loss 0.123', r.FONT_FAMILY);
  return [
    ok('canvas', 'node-canvas loads'),
    inked > 20
      ? ok('fonts', `${r.FONT_FAMILY} draws text (${font})`)
      : fail(
          'fonts',
          `${font} is registered but draws no text; set TRACK_LAUNCH_REPORT_FONT to another .ttf file`,
          'REPORT',
        ),
  ];
}
