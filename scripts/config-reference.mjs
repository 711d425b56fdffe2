// `npm run docs:config`: rewrites the generated block of docs/configuration.md from the built config schema.
import { readFileSync, writeFileSync } from 'node:fs';
import { configSchema } from '../dist/config/config-schema.js';
import { renderReference, replaceBlock, SAMPLE_INPUT } from './config-reference-render.mjs';

const file = new URL('../docs/configuration.md', import.meta.url);
const page = readFileSync(file, 'utf8');
const next = replaceBlock(page, renderReference(configSchema, configSchema.parse(SAMPLE_INPUT)));
if (next !== page) writeFileSync(file, next);
console.log(next === page ? 'docs/configuration.md is up to date' : 'docs/configuration.md rewritten');
