// Several chart.js charts on one page: each gets a stand-in canvas, the page's context shifted into its box.
import type { CanvasRenderingContext2D } from 'canvas';
import type { Box } from '../model';

export interface PanelCanvas {
  width: number;
  height: number;
  getContext(kind: '2d'): CanvasRenderingContext2D;
  /** Point the stand-in at another page (the same figure in another format) so the chart, already laid out,
   *  can be drawn again there with chart.draw(): no second parse, layout or element update. */
  retarget(page: CanvasRenderingContext2D, scale: number, splitStrokes: boolean): void;
}

/** Segments per stroke() when long lines are split on a raster page (see LineSplitter). */
export const SPLIT_SEGMENTS = 16;

/** `scale`: the page's pixel density, composed with chart.js's own transforms and the panel's offset.
 *  `splitStrokes` (raster pages only): long polylines are stroked in short pieces, see LineSplitter. */
export function panelCanvas(
  page: CanvasRenderingContext2D,
  box: Box,
  scale: number,
  splitStrokes = false,
): PanelCanvas {
  let target = page;
  let density = scale;
  let splitter: LineSplitter | undefined;
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
    retarget(next, nextScale, nextSplit) {
      splitter?.flush();
      target = next;
      density = nextScale;
      splitter = nextSplit ? new LineSplitter(next) : undefined;
      bound = new Map();
      base(1, 0, 0, 1, 0, 0);
    },
  };
  const ctx = new Proxy(page, {
    get(_, prop) {
      if (prop === 'canvas') return fake;
      const split = splitter?.methods[prop];
      if (split) return split;
      if (prop in own) {
        splitter?.flush();
        return own[prop];
      }
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== 'function') return value;
      splitter?.flush(); // any other call may read or change the path, or the transform it is drawn with
      let f = bound.get(prop);
      if (!f) bound.set(prop, (f = (value as (...a: unknown[]) => unknown).bind(target)));
      return f;
    },
    set(_, prop, value) {
      return Reflect.set(target, prop, value, target);
    },
  });
  fake.retarget(page, scale, splitStrokes);
  return fake;
}

/** cairo strokes a path as one polygon, and a long zigzag (a noisy metric: about one point per pixel, each a
 *  turn) makes its scan conversion slow; stroked in pieces of SPLIT_SEGMENTS segments it is quick.
 *  Pieces overlap by one segment, so every join is drawn as a join: an opaque line differs only in the
 *  antialiased edge of the segment drawn twice. Dashed or translucent lines, paths with anything but
 *  moveTo/lineTo, and everything on PDF pages are stroked whole. The path after beginPath() is kept here;
 *  any other call first sends it (flush), so the page always has the path it would have had. */
class LineSplitter {
  private xs: number[] = [];
  private ys: number[] = [];
  /** Index in xs/ys where each subpath starts. */
  private starts: number[] = [];
  private recording = false;
  /** The page's methods this class stands in for. */
  readonly methods: Record<PropertyKey, unknown>;

  constructor(private readonly page: CanvasRenderingContext2D) {
    this.methods = {
      beginPath: () => {
        this.clear();
        this.recording = true;
        page.beginPath();
      },
      moveTo: (x: number, y: number) => {
        if (!this.recording) return page.moveTo(x, y);
        this.starts.push(this.xs.length);
        this.xs.push(x);
        this.ys.push(y);
      },
      lineTo: (x: number, y: number) => {
        if (!this.recording) return page.lineTo(x, y);
        if (this.starts.length === 0) this.starts.push(0); // lineTo with no current point starts a subpath
        this.xs.push(x);
        this.ys.push(y);
      },
      stroke: () => {
        if (this.recording && this.splittable()) this.strokeInPieces();
        else {
          this.flush();
          page.stroke();
        }
      },
    };
  }

  /** Send the kept path to the page; from here to the next beginPath() calls go straight through. */
  flush(): void {
    if (!this.recording) return;
    this.recording = false;
    this.page.beginPath();
    this.trace();
    this.clear();
  }

  private clear(): void {
    this.xs = [];
    this.ys = [];
    this.starts = [];
  }

  private trace(): void {
    for (let p = 0; p < this.starts.length; p++) {
      const end = p + 1 < this.starts.length ? this.starts[p + 1] : this.xs.length;
      this.page.moveTo(this.xs[this.starts[p]], this.ys[this.starts[p]]);
      for (let i = this.starts[p] + 1; i < end; i++) this.page.lineTo(this.xs[i], this.ys[i]);
    }
  }

  private splittable(): boolean {
    const page = this.page;
    const style = page.strokeStyle;
    return (
      this.xs.length > 4 * SPLIT_SEGMENTS &&
      typeof style === 'string' &&
      /^#[0-9a-f]{6}$/i.test(style) && // opaque: a segment drawn twice looks as drawn once
      page.globalAlpha === 1 &&
      page.globalCompositeOperation === 'source-over' &&
      page.getLineDash().length === 0 // a dash pattern would restart at every piece
    );
  }

  private strokeInPieces(): void {
    const { page, xs, ys, starts } = this;
    const same = (i: number, j: number) => xs[i] === xs[j] && ys[i] === ys[j];
    for (let p = 0; p < starts.length; p++) {
      const first = starts[p];
      const last = (p + 1 < starts.length ? starts[p + 1] : xs.length) - 1;
      for (let from = first; ;) {
        let to = Math.min(last, from + SPLIT_SEGMENTS);
        // A piece never ends in a zero-length segment: cairo draws no join at one, so the join would be lost.
        while (to < last && same(to - 1, to)) to++;
        page.beginPath();
        page.moveTo(xs[from], ys[from]);
        for (let i = from + 1; i <= to; i++) page.lineTo(xs[i], ys[i]);
        page.stroke();
        if (to >= last) break;
        from = to - 1; // the next piece starts with this one's last segment: the join at `to` is drawn
      }
    }
    // The page's path is now the last piece; the next call that is not a new path gets the whole one back.
    this.recording = true;
  }
}
