/** ESM + TypeScript through ts-jest; type checking is done by `npm run typecheck`, so ts-jest only transpiles. */
export default {
  // Node's, with a temp folder per test file that must be left empty of svc-* (see the file).
  testEnvironment: '<rootDir>/__tests__/support/tempFolderEnvironment.mjs',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.test.json', diagnostics: false }],
  },
  testMatch: ['<rootDir>/__tests__/**/*.test.ts'],
  // A last guard for one test, above the wait for any one event (__tests__/support/patience.ts),
  // so a test that fails under load names what it waited for rather than timing out.
  testTimeout: 60000,
  maxWorkers: 2,
  // How long jest waits for a worker to exit once the run is over before it force exits it ("A
  // worker process has failed to exit gracefully"): 500 ms by default. A worker with nothing left
  // open still takes its time to go: a Node process of 200 MB took 0.5 to 1 s from its exit event
  // to gone on this 2-core machine under load 18. What a file leaves open fails that file instead
  // (__tests__/support/openHandles.mjs), so this wait only ever covers a slow exit, not a leak.
  workerGracefulExitTimeout: 10000,
  // Per checkout, so a transform cached by another clone of the project on the same machine is never reused.
  cacheDirectory: '<rootDir>/node_modules/.cache/jest',
};
