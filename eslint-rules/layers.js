// ESLint rule `layers/imports`: the package structure of docs/architecture.md, enforced.
//  - Layers: cli (top) > launcher, tracking-plugin, reports, data (the parts) > core (bottom).
//    An import may point down or stay inside its own package, never up.
//  - Another package is reached only through its index.ts (`../../core`, not `../../core/rundir/layout`).
//  - The parts do not import each other, except the edges listed in SIDEWAYS (reports reads the
//    metrics through the tracking plugin's public API).
// bench/, test/ and examples/ are outside the product and may import anything.
'use strict';
const path = require('path');

const ROOT = path.resolve(__dirname, '..');
const LAYER = { core: 0, launcher: 1, 'tracking-plugin': 1, reports: 1, data: 1, cli: 2 };
const SIDEWAYS = new Set(['reports->tracking-plugin']);

const packageOf = (file) => {
  const top = path.relative(ROOT, file).split(path.sep)[0];
  return Object.prototype.hasOwnProperty.call(LAYER, top) ? top : undefined;
};

/** Pure: why an import from `fromFile` of `spec` breaks the structure, or undefined. */
function violation(fromFile, spec) {
  const from = packageOf(fromFile);
  if (!from || !spec.startsWith('.')) return undefined; // outside the product, or a node module
  const target = path.resolve(path.dirname(fromFile), spec);
  const to = packageOf(target);
  if (!to) return `${from}/ imports ${spec}, which is outside the product packages`;
  if (to === from) return undefined;
  const inside = path.relative(path.join(ROOT, to), target);
  if (inside !== '' && inside !== 'index')
    return `${from}/ reaches into ${to}/${inside}: import ${to}/index.ts instead (add the export there)`;
  if (LAYER[to] > LAYER[from]) return `${from}/ imports ${to}/, a layer above it: arrows point down only`;
  if (LAYER[to] === LAYER[from] && !SIDEWAYS.has(`${from}->${to}`))
    return `${from}/ imports ${to}/, a part beside it: the parts meet in core/ (the run directory) or in cli/`;
  return undefined;
}

const rule = {
  meta: {
    type: 'problem',
    schema: [],
    docs: { description: 'imports follow the layers of docs/architecture.md' },
  },
  create(context) {
    const file = context.filename ?? context.getFilename();
    const check = (node, source) => {
      if (!source || typeof source.value !== 'string') return;
      const why = violation(file, source.value);
      if (why) context.report({ node, message: why });
    };
    return {
      ImportDeclaration: (n) => check(n, n.source),
      ExportNamedDeclaration: (n) => check(n, n.source),
      ExportAllDeclaration: (n) => check(n, n.source),
      ImportExpression: (n) => check(n, n.source),
      CallExpression: (n) => {
        if (
          n.callee.type === 'Identifier' &&
          n.callee.name === 'require' &&
          n.arguments[0]?.type === 'Literal'
        )
          check(n, n.arguments[0]);
      },
    };
  },
};

module.exports = { rules: { imports: rule }, violation, ROOT };
