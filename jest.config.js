// Two projects: `unit` (pure logic, no services) and `integration` (the real Slurm test
// cluster, a real MLflow server, real torch). test/run-all.sh starts the services first.
// Transpile only (isolatedModules in tsconfig.test.json): `tsc -p tsconfig.test.json` type-checks.
const transform = { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }] };
module.exports = {
  // one temporary directory per test run, removed at its end (test/tmp-setup.js)
  globalSetup: '<rootDir>/test/tmp-setup.js',
  globalTeardown: '<rootDir>/test/tmp-teardown.js',
  projects: [
    {
      displayName: 'unit',
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
      transform,
      testEnvironment: 'node',
    },
    {
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts', '<rootDir>/test/e2e/**/*.test.ts'],
      transform,
      testEnvironment: 'node',
    },
  ],
};
