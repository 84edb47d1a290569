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
  // Per checkout, so a transform cached by another clone of the project on the same machine is never reused.
  cacheDirectory: '<rootDir>/node_modules/.cache/jest',
};
