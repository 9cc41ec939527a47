// Without a registered font node-canvas draws no text at all, so a missing font is an error, not a blank chart.
import * as fs from 'fs';
import { registerFont } from 'canvas';
import { TrackLaunchError } from '../../core';

export const FONT_FAMILY = 'DejaVu Sans';

const CANDIDATES = [
  '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf', // Debian/Ubuntu fonts-dejavu-core
  '/usr/share/fonts/dejavu/DejaVuSans.ttf', // Fedora/RHEL dejavu-sans-fonts
  '/usr/share/fonts/TTF/DejaVuSans.ttf', // Arch ttf-dejavu
];

let registered = false;

/** Register DejaVu Sans (or $TRACK_LAUNCH_REPORT_FONT) once; must run before the first canvas is created. */
export function ensureFont(env: NodeJS.ProcessEnv = process.env): string {
  const chosen = env.TRACK_LAUNCH_REPORT_FONT ? [env.TRACK_LAUNCH_REPORT_FONT] : CANDIDATES;
  const file = chosen.find((f) => fs.existsSync(f));
  if (!file) {
    throw new TrackLaunchError('REPORT', `no font for report text: looked for ${chosen.join(', ')}`, {
      hint: 'install fonts-dejavu-core (apt-get install fonts-dejavu-core) or set TRACK_LAUNCH_REPORT_FONT to a .ttf file',
      details: { looked_for: chosen },
    });
  }
  if (!registered) {
    registerFont(file, { family: FONT_FAMILY });
    const bold = file.replace(/DejaVuSans\.ttf$/, 'DejaVuSans-Bold.ttf');
    if (bold !== file && fs.existsSync(bold)) registerFont(bold, { family: FONT_FAMILY, weight: 'bold' });
    registered = true;
  }
  return file;
}
