// The reports' text font, found on this machine (or given): a missing font is an error, not a blank chart.
import * as fs from 'fs';
import { TrackLaunchError } from '../../core';
import { canvas } from './canvas';

export const FONT_FAMILY = 'DejaVu Sans';

const CANDIDATES = [
  '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf', // Debian/Ubuntu fonts-dejavu-core
  '/usr/share/fonts/dejavu/DejaVuSans.ttf', // Fedora/RHEL dejavu-sans-fonts
  '/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf', // Fedora 36+
  '/usr/share/fonts/TTF/DejaVuSans.ttf', // Arch ttf-dejavu
  '/usr/share/fonts/truetype/DejaVuSans.ttf', // openSUSE dejavu-fonts
];

let registered: string | undefined;

/** Register DejaVu Sans (or $TRACK_LAUNCH_REPORT_FONT) once, regular and bold, under FONT_FAMILY. */
export function ensureFont(env: NodeJS.ProcessEnv = process.env): string {
  const chosen = env.TRACK_LAUNCH_REPORT_FONT ? [env.TRACK_LAUNCH_REPORT_FONT] : CANDIDATES;
  const file = chosen.find((f) => fs.existsSync(f));
  if (!file) {
    throw new TrackLaunchError('REPORT', `no font for report text: looked for ${chosen.join(', ')}`, {
      hint: 'install fonts-dejavu-core (apt-get install fonts-dejavu-core) or set TRACK_LAUNCH_REPORT_FONT to a .ttf file',
      details: { looked_for: chosen },
    });
  }
  if (registered === file) return file;
  const fonts = canvas().GlobalFonts;
  // With a weight on each face, the family keeps both: bold text gets the bold face, the rest the regular.
  if (!fonts.registerFromPath(file, FONT_FAMILY, { weight: 'normal' }))
    throw new TrackLaunchError('REPORT', `${file} is not a font the renderer can read`, {
      hint: 'set TRACK_LAUNCH_REPORT_FONT to a .ttf file',
      details: { font: file },
    });
  const bold = file.replace(/DejaVuSans\.ttf$/, 'DejaVuSans-Bold.ttf');
  if (bold !== file && fs.existsSync(bold)) fonts.registerFromPath(bold, FONT_FAMILY, { weight: 'bold' });
  registered = file;
  return file;
}

/** Pixels with ink after drawing `text` on a small canvas: whether the registered font draws at all. */
export function inkedPixels(text: string): number {
  const c = canvas().createCanvas(240, 40);
  const ctx = c.getContext('2d');
  ctx.fillStyle = '#000';
  ctx.font = `20px "${FONT_FAMILY}"`;
  ctx.fillText(text, 8, 28);
  const data = ctx.getImageData(0, 0, 240, 40).data;
  let inked = 0;
  for (let i = 3; i < data.length; i += 4) if (data[i] > 0) inked++;
  return inked;
}
