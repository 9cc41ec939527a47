#!/usr/bin/env node
// Thin shim in syntax every Node parses: an older Node gets one line instead of a stack trace from dist/.
// The CLI is compiled to dist/ when the package is packed, by `npm ci` in a clone, or by `npm run build`.
'use strict';
var path = require('path');
var fs = require('fs');
var root = path.join(__dirname, '..');
var wanted = require(path.join(root, 'package.json')).engines.node; // ">=20"
var need = Number(wanted.replace(/^>=\s*/, '').split('.')[0]);
var have = process.versions.node;
if (Number(have.split('.')[0]) < need) {
  process.stderr.write(
    'track-launch: needs Node.js ' +
      need +
      ' or newer; found Node.js ' +
      have +
      ' (' +
      process.execPath +
      '). Put Node.js ' +
      need +
      '+ first on PATH (e.g. `module load nodejs`, nvm) and run it again.\n',
  );
  process.exit(2);
}
var entry = path.join(root, 'dist', 'cli', 'main.js');
if (!fs.existsSync(entry)) {
  process.stderr.write('track-launch: not built yet. Run `npm ci` (or `npm run build`) in ' + root + '\n');
  process.exit(2);
}
require(entry).main(process.argv.slice(2));
