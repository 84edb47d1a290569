// ESLint for the TypeScript sources, tests, fixtures and benches (typescript-eslint's recommended rules).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.ci/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly' } },
    rules: {
      // Control characters in patterns are the point where input is escaped or refused.
      'no-control-regex': 'off',
      // `_name` marks what a signature or a destructuring leaves out on purpose.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  // TypeScript checks names itself (no-undef knows nothing of Node's globals in type positions).
  { files: ['**/*.ts'], rules: { 'no-undef': 'off' } },
  // CommonJS on purpose (scripts/check-node.cjs must run on any Node, however old).
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
