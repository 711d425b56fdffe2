#!/usr/bin/env node
// `npm run simulate -- --seed N --requests 20000 [--engine sqlite|postgres]`: the expert-protection
// simulation at any length. It runs the same test as `npm test` (test/simulation/simulation.test.ts),
// with the seed, size and engine given (default sqlite; postgres starts a local PostgreSQL itself).
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { seed: { type: 'string' }, requests: { type: 'string', default: '20000' }, engine: { type: 'string', default: 'sqlite' } } });
const seed = values.seed ?? String(Math.floor(Math.random() * 2 ** 31));
const requests = Number(values.requests);
if (!Number.isInteger(requests) || requests < 1) {
  console.error('simulate: --requests must be a positive whole number');
  process.exit(2);
}
if (!['sqlite', 'postgres'].includes(values.engine)) {
  console.error('simulate: --engine must be sqlite or postgres');
  process.exit(2);
}
const env = { ...process.env, SIM_ENGINE: values.engine, SIM_SEED: seed, SIM_REQUESTS: String(requests), SIM_TIMEOUT_MS: String(Math.max(120_000, requests * 100)) };
const run = spawnSync('npx', ['vitest', 'run', 'test/simulation/simulation.test.ts'], { stdio: 'inherit', env });
process.exit(run.status ?? 1);
