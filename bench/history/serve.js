// `node bench/history/serve.js [--requests N] [--port P]`: serves a copy of the cached SQLite history
// (built by `npm run bench:history`) with the bench's organisation, so its Insights page, queue and
// request lists can be looked at full of data. Prints the URL and the admin token; Ctrl-C stops it.
import { copyFileSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { createLogger } from '../../dist/log.js';
import { startServer } from '../../dist/server.js';
import { ADMIN_TOKEN, cachedPaths, TOKEN_ENV, writeHistoryConfig } from './setup.js';

/** The asks the console transport would print: thousands of open requests' worth, dropped. */
const quiet = () => new Writable({ write: (_chunk, _encoding, done) => done() });

const { values } = parseArgs({ options: { requests: { type: 'string', default: '100000' }, port: { type: 'string', default: '8080' } } });
const cached = cachedPaths(Number(values.requests)).db;
if (!existsSync(cached)) throw new Error(`${cached} is not built yet: run npm run bench:history first.`);
const dir = mkdtempSync(join(tmpdir(), 'expertq-history-serve-'));
copyFileSync(cached, join(dir, 'history.db'));
const server = await startServer({ configPath: writeHistoryConfig(dir, { path: join(dir, 'history.db') }), port: Number(values.port), env: { ...process.env, ...TOKEN_ENV }, out: quiet(), logger: createLogger(process.stderr, 'warn') });
console.log(`serving a copy of ${cached} at ${server.url} (open ${server.url}/#/insights?range=1y); admin token: ${ADMIN_TOKEN}`);
