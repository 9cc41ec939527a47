// Finds rows that repeat an earlier row's series and coordinates, without a string per row: an
// open-addressing hash table over (series index, x, y, z), growing as rows come in.

// Globals cached here: under a vm context (jest) every global lookup in a hot loop is slow.
const imul = Math.imul;
const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

function mix(h: number, v: number): number {
  f64[0] = v + 0; // -0 -> 0
  h = imul(h ^ u32[0], 0x9e3779b1);
  h = imul(h ^ (h >>> 15) ^ u32[1], 0x85ebca77);
  return h ^ (h >>> 13);
}

export class CoordSet {
  private slots = new Int32Array(1 << 12); // row + 1, 0 = empty
  private size = 0;
  private readonly series: number[] = [];
  private readonly xyz: number[] = [];

  /** Adds row `row` (rows are added 0, 1, 2, ...); returns the earlier row with the same key, or -1. */
  add(series: number, x: number, y: number, z: number): number {
    const row = this.series.length;
    this.series.push(series);
    this.xyz.push(x, y, z);
    const found = this.insert(row);
    if (found >= 0) return found;
    if (++this.size * 2 > this.slots.length) this.grow();
    return -1;
  }

  private hash(row: number): number {
    const k = 3 * row;
    return mix(mix(mix(mix(0x811c9dc5, this.series[row]), this.xyz[k]), this.xyz[k + 1]), this.xyz[k + 2]);
  }

  private same(a: number, b: number): boolean {
    const i = 3 * a;
    const j = 3 * b;
    return (
      this.series[a] === this.series[b] &&
      this.xyz[i] === this.xyz[j] &&
      this.xyz[i + 1] === this.xyz[j + 1] &&
      this.xyz[i + 2] === this.xyz[j + 2]
    );
  }

  private insert(row: number): number {
    const mask = this.slots.length - 1;
    for (let s = this.hash(row) & mask; ; s = (s + 1) & mask) {
      const v = this.slots[s];
      if (v === 0) {
        this.slots[s] = row + 1;
        return -1;
      }
      if (this.same(v - 1, row)) return v - 1;
    }
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2);
    for (const v of old) if (v) this.insert(v - 1);
  }
}
