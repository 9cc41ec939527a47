// Colours of ranks: matplotlib's tab10 while they fit; beyond, a hue per host (a slow host stands out) and a
// shade of it per rank.

const TAB10_HEX = '#1f77b4 #ff7f0e #2ca02c #d62728 #9467bd #8c564b #e377c2 #7f7f7f #bcbd22 #17becf';
export const TAB10 = TAB10_HEX.split(' ');

/** Lightness spread (percent points either side of the host's colour) over a host's ranks. */
const SHADE_SPREAD = 14;

type Hsl = [number, number, number];

function hexToHsl(hex: string): Hsl {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
  const [max, min] = [Math.max(r, g, b), Math.min(r, g, b)];
  const l = (max + min) / 2;
  const d = max - min;
  if (d === 0) return [0, 0, l * 100];
  const s = d / (1 - Math.abs(2 * l - 1));
  const h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  return [(h * 60 + 360) % 360, s * 100, l * 100];
}

/** `#rrggbb`: the raster renderer strokes long lines in pieces only for opaque hex colours. */
function hslToHex([h, s, l]: Hsl): string {
  const [S, L] = [s / 100, l / 100];
  const a = S * Math.min(L, 1 - L);
  const f = (n: number) => {
    const k = (n + h / 30) % 12;
    const c = L - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(255 * c)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${f(0)}${f(8)}${f(4)}`;
}

/** Distinct colours: tab10, then evenly spaced hues. */
export function colour(i: number, n: number): string {
  if (n <= TAB10.length) return TAB10[i % TAB10.length];
  return hslToHex([(i * 360) / n, 65, 45]);
}

/** One colour per series: tab10 while it lasts; beyond, on several hosts, the host's hue shaded per rank. */
export function rankColours(series: readonly { host?: string }[]): string[] {
  const n = series.length;
  const hosts = [...new Set(series.map((s) => s.host ?? '?'))];
  if (n <= TAB10.length || hosts.length < 2) return series.map((_, i) => colour(i, n));
  const members = new Map<string, number>();
  const place = series.map((s) => {
    const h = s.host ?? '?';
    const k = members.get(h) ?? 0;
    members.set(h, k + 1);
    return k;
  });
  return series.map((s, i) => {
    const h = hosts.indexOf(s.host ?? '?');
    const [hue, sat, light] = hexToHsl(colour(h, hosts.length));
    const m = members.get(s.host ?? '?')!;
    const shift = m > 1 ? SHADE_SPREAD * ((2 * place[i]) / (m - 1) - 1) : 0;
    return hslToHex([hue, sat, Math.min(80, Math.max(20, light + shift))]);
  });
}
