// doctor's checks of this machine: which Node runs track-launch, how it was installed, and whether the
// report renderer loads and draws text with the reports' font.
import * as fs from 'fs';
import * as path from 'path';
import type { DoctorCheck } from '../../launcher';
import { packageRoot, packageVersion } from '../../core';
import { fail, failFrom, ok } from '../../launcher';
import { reports } from '../lazy';

export const MIN_NODE_MAJOR = 20;

export function nodeCheck(version: string = process.versions.node, exec = process.execPath): DoctorCheck {
  const major = Number(version.split('.')[0]);
  return major >= MIN_NODE_MAJOR
    ? ok('node', `Node.js ${version} (${exec})`)
    : fail(
        'node',
        `Node.js ${version} is older than ${MIN_NODE_MAJOR}; install Node.js ${MIN_NODE_MAJOR} or newer`,
        'USAGE',
      );
}

/** A git clone (built in place) or an npm package, with the prefix `npm install -g --prefix` was given. */
export function installCheck(root = packageRoot()): DoctorCheck {
  const version = packageVersion();
  if (fs.existsSync(path.join(root, '.git')))
    return ok('install', `git clone at ${root}, version ${version}`);
  const global = /^(.*)[\\/]lib[\\/]node_modules[\\/]track-launch$/.exec(root);
  return ok(
    'install',
    global
      ? `npm package ${version} at prefix ${global[1]} (npm install -g)`
      : `npm package ${version} at ${root}`,
  );
}

export function rendererCheck(env: NodeJS.ProcessEnv = process.env): DoctorCheck[] {
  const r = reports();
  let renderer: string;
  try {
    renderer = `${r.rendererInfo()} loads`;
  } catch (err) {
    return [failFrom('renderer', err)];
  }
  let font: string;
  try {
    font = r.ensureFont(env);
  } catch (err) {
    return [ok('renderer', renderer), failFrom('fonts', err)];
  }
  return [
    ok('renderer', renderer),
    r.inkedPixels('Loss 0.123') > 20
      ? ok('fonts', `${r.FONT_FAMILY} draws text (${font})`)
      : fail(
          'fonts',
          `${font} is registered but draws no text; set TRACK_LAUNCH_REPORT_FONT to another .ttf file`,
          'REPORT',
        ),
  ];
}
