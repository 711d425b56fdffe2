import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The layers of src/, lowest first (cli → server → app/composition → http/mcp/scheduler → service →
 * delivery/llm/transport → store → domain/config/core). A file may
 * import its own layer and those below it; an import that runs back up a layer fails `npm run lint`.
 * A needed upward call becomes an interface the lower layer owns and the composition root wires.
 */
const FOLDER_LAYERS = [
  ['domain', 'config', 'core'],
  ['store'],
  ['delivery', 'llm', 'transport', 'client'],
  ['service'],
  ['http', 'mcp', 'scheduler', 'metrics'],
];
/** Files at the top of src/, above every folder layer but cli/. */
const COMPOSITION = ['app', 'create-service', 'wire-service'];
const SERVER = ['server'];
const ENTRY = ['index'];

/** A relative import of one of `folders` (any depth of `../`) or of one of the top-level `files`. */
function upward(folders, files, layer) {
  const patterns = [];
  if (folders.length > 0) {
    patterns.push({
      regex: `^(\\./|(\\.\\./)+)(${folders.join('|')})/`,
      message: `${layer} sits below ${folders.join(', ')}: import only downward (turn the call into an interface this layer owns, wired at the composition root).`,
    });
  }
  patterns.push({
    regex: `^(\\./|(\\.\\./)+)(${files.join('|')})\\.js$`,
    message: `${layer} sits below ${files.map((f) => `${f}.ts`).join(', ')}: import only downward.`,
  });
  return patterns;
}

function layerRules() {
  const blocks = [];
  FOLDER_LAYERS.forEach((layer, i) => {
    const above = [...FOLDER_LAYERS.slice(i + 1).flat(), 'cli'];
    for (const folder of layer) {
      blocks.push({
        files: [`src/${folder}/**/*.ts`],
        rules: { 'no-restricted-imports': ['error', { patterns: upward(above, [...COMPOSITION, ...SERVER, ...ENTRY], `src/${folder}/`) }] },
      });
    }
  });
  blocks.push({
    files: COMPOSITION.map((f) => `src/${f}.ts`),
    rules: { 'no-restricted-imports': ['error', { patterns: upward(['cli'], [...SERVER, ...ENTRY], 'the composition root') }] },
  });
  blocks.push({
    files: SERVER.map((f) => `src/${f}.ts`),
    rules: { 'no-restricted-imports': ['error', { patterns: upward(['cli'], ENTRY, 'the server') }] },
  });
  return blocks;
}

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'test-artifacts/', 'web/assets/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', fetch: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  // With an asynchronous store, a promise nobody awaits is a write that may land outside its
  // transaction or an error nobody sees: every promise is awaited, returned or marked `void`.
  {
    files: ['src/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: { '@typescript-eslint/no-floating-promises': 'error', '@typescript-eslint/await-thenable': 'error' },
  },
  ...layerRules(),
  // The queue renders proposal cards; a card never imports the queue (what both need lives in its own module).
  {
    files: ['web/src/proposal-card.tsx'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '^\\./queue\\.js$', message: 'The proposal card must not import the queue that renders it.' }] }] },
  },
);
