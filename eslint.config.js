// ESLint (flat config): the recommended JavaScript and TypeScript rules on every source file.
// Formatting is prettier's job; types are tsc's (strict).
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const layers = require('./eslint-rules/layers');

module.exports = tseslint.config(
  {
    ignores: [
      '.venv/',
      '.venv-mlflow2/',
      'dist/',
      'node_modules/',
      'test/cluster/.state/',
      'test/.artifacts/',
      'runs/',
      'bench/results/',
      '**/*.out.ts', // line times of rank logs (logs/rank-R.out.ts), not TypeScript
      '**/*.err.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // Plain CommonJS files (the bin entry, configs, a test hook) load with require.
  { files: ['**/*.js'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
  {
    languageOptions: {
      globals: {
        require: 'readonly',
        module: 'writable',
        process: 'readonly',
        __dirname: 'readonly',
        console: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // The package structure (docs/architecture.md): layers point down, packages meet through index.ts.
  {
    files: [
      'cli/**/*.ts',
      'launcher/**/*.ts',
      'tracking-plugin/**/*.ts',
      'reports/**/*.ts',
      'data/**/*.ts',
      'core/**/*.ts',
    ],
    plugins: { layers },
    rules: { 'layers/imports': 'error' },
  },
  // Only core/rundir/ opens run-directory files (docs/architecture.md): no file system module in
  // the parts that read the run directory. Exceptions, each reading no run-directory file:
  {
    files: ['tracking-plugin/**/*.ts', 'reports/**/*.ts'],
    ignores: [
      'reports/render/fonts.ts', // reads the font files shipped with the package
      'tracking-plugin/mlflow/**', // reads CA bundles and the MLflow config the user points to
      'tracking-plugin/ingest/who.ts', // stats the user's training script to find its git commit
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        ...['fs', 'fs/promises', 'node:fs', 'node:fs/promises'].map((name) => ({
          name,
          message:
            'open run-directory files through core/rundir/ (its trust rules: no symlinks, modes, size bounds)',
        })),
      ],
    },
  },
);
