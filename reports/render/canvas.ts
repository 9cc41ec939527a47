// The 2D renderer (@napi-rs/canvas: skia, prebuilt per platform), loaded on first use: a machine where it
// does not load still runs every command that draws nothing, and a report says why and what to do.
import type * as Canvas from '@napi-rs/canvas';
import { TrackLaunchError } from '../../core';

export type Context2D = Canvas.SKRSContext2D;
export const RENDERER = '@napi-rs/canvas';

let loaded: typeof Canvas | undefined;

/** This machine as npm names @napi-rs/canvas's prebuilt packages: linux-x64-gnu, linux-arm64-musl, ... */
export function platformTag(): string {
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  const libc = process.platform !== 'linux' ? '' : report?.header?.glibcVersionRuntime ? '-gnu' : '-musl';
  return `${process.platform}-${process.arch}${libc}`;
}

/** The renderer's module, or a REPORT error naming this platform and the fix. */
export function canvas(): typeof Canvas {
  if (loaded) return loaded;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when something is drawn
    loaded = require(RENDERER) as typeof Canvas;
    return loaded;
  } catch (err) {
    const why = (err as Error).message.split('\n')[0];
    throw new TrackLaunchError(
      'REPORT',
      `the report renderer ${RENDERER} does not load on ${platformTag()}: ${why}`,
      {
        hint:
          `reinstall track-launch with npm on this machine without omitting optional dependencies (npm installs ` +
          `${RENDERER}-${platformTag()} from the npm registry; no compiler needed); prebuilt for linux x64/arm64 ` +
          `(glibc and musl), macOS and Windows. Commands that draw nothing work meanwhile.`,
        details: { renderer: RENDERER, platform: platformTag() },
        cause: err,
      },
    );
  }
}

/** "@napi-rs/canvas 1.2.1 on linux-x64-gnu", once it loads (else canvas()'s REPORT error). */
export function rendererInfo(): string {
  canvas();
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the installed package's own version
  const { version } = require(`${RENDERER}/package.json`) as { version: string };
  return `${RENDERER} ${version} on ${platformTag()}`;
}
