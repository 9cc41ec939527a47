// Several chart.js charts on one page: each gets a stand-in canvas, the page's context shifted into its box.
import type { Box } from '../model';
import type { Context2D } from './canvas';

export interface PanelCanvas {
  width: number;
  height: number;
  getContext(kind: '2d'): Context2D;
  /** Point the stand-in at another page (the same figure in another format) so the chart, already laid out,
   *  can be drawn again there with chart.draw(): no second parse, layout or element update. */
  retarget(page: Context2D, scale: number): void;
}

/** `scale`: the page's pixel density, composed with chart.js's own transforms and the panel's offset. */
export function panelCanvas(page: Context2D, box: Box, scale: number): PanelCanvas {
  let target = page;
  let density = scale;
  let bound = new Map<PropertyKey, unknown>();
  const base = (a: number, b: number, c: number, d: number, e: number, f: number) =>
    target.setTransform(
      density * a,
      density * b,
      density * c,
      density * d,
      density * (e + box.x),
      density * (f + box.y),
    );
  const own: Record<PropertyKey, unknown> = {
    setTransform: base,
    resetTransform: () => base(1, 0, 0, 1, 0, 0),
    // The page is painted white once; a chart clearing its box would punch a transparent hole in PNGs.
    clearRect: () => undefined,
  };
  const fake: PanelCanvas = {
    width: box.w,
    height: box.h,
    getContext: () => ctx,
    retarget(next, nextScale) {
      target = next;
      density = nextScale;
      bound = new Map();
      base(1, 0, 0, 1, 0, 0);
    },
  };
  const ctx = new Proxy(page, {
    get(_, prop) {
      if (prop === 'canvas') return fake;
      if (prop in own) return own[prop];
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== 'function') return value;
      let f = bound.get(prop);
      if (!f) bound.set(prop, (f = (value as (...a: unknown[]) => unknown).bind(target)));
      return f;
    },
    set(_, prop, value) {
      return Reflect.set(target, prop, value, target);
    },
  });
  fake.retarget(page, scale);
  return fake;
}
