// Lint rules, including the import boundaries of ARCHITECTURE.md §1: the SDK never imports the
// kernel, and plugins and examples import only the SDK (and other plugins' public entry points).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const kernelImports = { group: ['@keel/kernel', '@keel/kernel/*', '**/kernel/src/**', '**/kernel/dist/**'], message: 'Only the host imports the kernel; write against @keel/plugin-sdk.' };
const internals = { group: ['@keel/plugin-*/src/*', '@keel/plugin-*/dist/*', '../../plugins/*/src/**'], message: "Import another plugin's public entry point (its index), never its internals." };

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'data/**', 'test/reporter.cjs', 'tools/*/build/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['plugin-sdk/**/*.ts', 'plugins/**/*.ts', 'examples/**/*.ts', 'engines/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [kernelImports, internals] }] },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: globals.node },
  },
);
