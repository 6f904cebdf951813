/** Jest in ESM mode (NestJS 12 is ESM-only): see STACK.md. */
export default {
  rootDir: '.',
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.e2e-spec.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.jest.json', diagnostics: false }],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  globalSetup: '<rootDir>/test/global-setup.ts',
  // Each worker's own database, Redis prefix and traffic file (made by globalSetup for each worker).
  setupFiles: ['<rootDir>/test/worker-env.ts'],
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  testTimeout: 60000,
  // Exit once the run is over even if a library keeps a handle open (seen: a Redis socket after the
  // dovecot suites): a run that never ends would hold CI until its time limit. globalTeardown still runs.
  forceExit: true,
  // Two files at a time (docs/testing.md): each worker has its own database, Redis prefix and traffic
  // file (test/worker-env.ts). The slowest files start first (test/sequencer.mjs, test/timings.json).
  maxWorkers: 2,
  testSequencer: '<rootDir>/test/sequencer.mjs',
  // The run's progress, for the traffic check that waits until every other file is over.
  reporters: ['default', '<rootDir>/test/run-progress-reporter.mjs'],
};
