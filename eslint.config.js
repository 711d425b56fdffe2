import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/**
 * The layers of src/, lowest first. A file may import its own layer and those below it; an import that
 * runs back up a layer fails `npm run lint` (eslint-plugin-boundaries). A needed upward call becomes an
 * interface the lower layer owns and the composition root wires.
 */
const LAYERS = [
  { type: 'base', files: ['clock', 'errors', 'ids', 'package-info'] },
  { type: 'model', folders: ['domain', 'config', 'core', 'wire'] },
  { type: 'store', folders: ['store'] },
  { type: 'outside', folders: ['delivery', 'llm', 'transport', 'client'] },
  // The service, one folder per capability, lowest first: a capability imports only those before it
  // (and only through their index.ts, see below). docs/architecture.md says what each holds.
  { type: 'service-engine', folders: ['service/engine'] },
  { type: 'service-facts', folders: ['service/availability', 'service/consumers', 'service/library', 'service/sessions', 'service/insights'] },
  { type: 'service-routing', folders: ['service/routing'] },
  { type: 'service-changes', folders: ['service/experts', 'service/review'] },
  { type: 'service-arrivals', folders: ['service/requests', 'service/replies'] },
  { type: 'service-llm', folders: ['service/llm'] },
  { type: 'service-operations', folders: ['service/operations'] },
  { type: 'service', files: ['service/expertq-service', 'service/service-base', 'service/service-options'] },
  { type: 'interface', folders: ['http', 'mcp', 'metrics'] },
  // compose-service is the composition root: every worker and timer is built there.
  { type: 'composition', files: ['app', 'compose-service', 'create-service', 'open-channels', 'log'] },
  { type: 'server', files: ['server'] },
  { type: 'cli', folders: ['cli'] },
  { type: 'entry', files: ['index'] },
];

// Folders are elements; the files at the top of src/ are classified one by one.
const layerElements = LAYERS.filter((l) => l.folders).map(({ type, folders }) => ({ type, pattern: folders.map((f) => `src/${f}`) }));
const layerFiles = LAYERS.filter((l) => l.files).map(({ type, files }) => ({ category: type, pattern: files.map((f) => `src/${f}.ts`) }));

/** What a layer may import: its own and every layer below, whether folders (elements) or single files. */
function allowedBelow(i) {
  const below = LAYERS.slice(0, i + 1);
  const types = below.filter((l) => l.folders).map((l) => l.type);
  const categories = below.filter((l) => l.files).map((l) => l.type);
  return [
    ...(types.length ? [{ to: { element: { types: { anyOf: types } } } }] : []),
    ...(categories.length ? [{ to: { file: { categories: { anyOf: categories } } } }] : []),
  ];
}

const DEEP_IMPORT = "Import another service capability through its index.ts (its public surface), not its inner files.";

const layerPolicies = LAYERS.flatMap(({ type, folders }, i) =>
  allowedBelow(i).map((allow) => ({ from: folders ? { element: { type } } : { file: { categories: type } }, allow })),
);

const layerRules = {
  files: ['src/**/*.ts'],
  plugins: { boundaries },
  settings: {
    'import/resolver': { typescript: { project: './tsconfig.json' } },
    'boundaries/elements': layerElements,
    'boundaries/files': layerFiles,
  },
  rules: {
    'boundaries/dependencies': ['error', { default: 'disallow', policies: layerPolicies }],
    // Every file of src/ belongs to a layer, so a new folder cannot slip past the rule above.
    'boundaries/no-unknown-files': 'error',
  },
};

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'test-artifacts/', 'web/assets/', 'bench/.scratch/'] },
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
  layerRules,
  // An import circle makes load order matter and hides which module owns what: none in src/.
  {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  // A capability's index.ts is its public surface: other folders import that, never its inner files.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/service/*/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '(^|/)service/[a-z-]+/(?!index\\.js$)[^/]+$', message: DEEP_IMPORT }] }] },
  },
  {
    files: ['src/service/*/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '^\\.\\./[a-z-]+/(?!index\\.js$)[^/]+$', message: DEEP_IMPORT }] }] },
  },
  // Responses are checked by parsing them with their schema (src/http/serialize-response.ts), which
  // equals encoding only while no schema of the API converts values: a codec or transform would need encoding.
  {
    files: ['src/http/**/*.ts', 'src/wire/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name=/^(codec|transform|pipe|preprocess|overwrite)$/]",
          message: 'API schemas do not convert values: responses are parsed, not encoded (src/http/serialize-response.ts). Convert in the handler instead.',
        },
      ],
    },
  },
  // The queue renders proposal cards; a card and its parts never import the queue (what both need lives
  // in its own module: decision.ts, key-target.ts, card-drafts.ts).
  {
    files: ['web/src/proposal-card.tsx', 'web/src/proposal-parts.tsx', 'web/src/answer-edit.tsx', 'web/src/accept-form.tsx', 'web/src/reject-form.tsx', 'web/src/send-back-form.tsx', 'web/src/card-drafts.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '^\\./queue\\.js$', message: 'The proposal card must not import the queue that renders it.' }] }] },
  },
);
