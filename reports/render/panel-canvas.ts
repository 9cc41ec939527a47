// chart.js draws on a whole canvas. To put several charts on one page (and one vector PDF page) each chart
// gets a stand-in canvas whose context is the page's context, shifted into the panel's box.
import type { CanvasRenderingContext2D } from 'canvas';
import type { Box } from '../model';

export interface PanelCanvas {
  width: number;
  height: number;
  getContext(kind: '2d'): CanvasRenderingContext2D;
}

/**
 * `scale` is the page's pixel density (2 for PNG, 1 for PDF). chart.js sets its own transform with
 * setTransform/resetTransform; both are composed with the panel's offset and the page scale.
 */
export function panelCanvas(page: CanvasRenderingContext2D, box: Box, scale: number): PanelCanvas {
  const base = (a: number, b: number, c: number, d: number, e: number, f: number) =>
    page.setTransform(scale * a, scale * b, scale * c, scale * d, scale * (e + box.x), scale * (f + box.y));
  const fake: PanelCanvas = { width: box.w, height: box.h, getContext: () => ctx };
  const ctx = new Proxy(page, {
    get(target, prop) {
      if (prop === 'canvas') return fake;
      if (prop === 'setTransform')
        return (a: number, b: number, c: number, d: number, e: number, f: number) => base(a, b, c, d, e, f);
      if (prop === 'resetTransform') return () => base(1, 0, 0, 1, 0, 0);
      // The page is painted white once; a chart clearing its box would punch a transparent hole in PNGs.
      if (prop === 'clearRect') return () => undefined;
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
    set(target, prop, value) {
      return Reflect.set(target, prop, value, target);
    },
  });
  base(1, 0, 0, 1, 0, 0);
  return fake;
}
