#!/usr/bin/env node
'use strict';
// Thin shim: the CLI is compiled to dist/ by `npm ci` (the `prepare` script) or `npm run build`.
const path = require('path');
const fs = require('fs');
const entry = path.join(__dirname, '..', 'dist', 'cli', 'main.js');
if (!fs.existsSync(entry)) {
  process.stderr.write(
    'track-launch: not built yet. Run `npm ci` (or `npm run build`) in ' + path.dirname(__dirname) + '\n',
  );
  process.exit(2);
}
require(entry).main(process.argv.slice(2));
