// One server under test in a process of its own, so two expertq instances really are two processes (and
// `--cpu-prof` profiles one server alone). argv[2]: JSON
//   { kind: 'baseline', url, poolSize }  a bare Fastify + zod + one INSERT through a pg Pool
//   { kind: 'expertq', configFile, env, clockOffsetMs?, forwardLogs?, rollups? }  the real server (startServer), console
//                                          output and logs discarded; its clock runs clockOffsetMs behind the wall
//                                          clock; log lines (info and up) whose message starts with one of
//                                          forwardLogs are sent to the parent as { log } (they may come before { url })
// Sends { url } over IPC once listening (or { error }); on the message 'stop' it closes and exits 0,
// which is when Node writes a --cpu-prof profile.
import { Writable } from 'node:stream';
import pg from 'pg';
import { createLogger } from '../dist/log.js';
import { startServer } from '../dist/server.js';
import { PgInsights } from '../dist/store/postgres/insights.js';
import { baselineApp } from './servers.js';

const options = JSON.parse(process.argv[2]);
const discard = () => new Writable({ write: (_chunk, _encoding, callback) => callback() });

/** The baseline: the same body validation as expertq, then one autocommitted INSERT on a pool of the same size. */
async function startBaseline({ url, poolSize }) {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  pool.on('error', () => {});
  await pool.query('CREATE TABLE requests (id TEXT PRIMARY KEY, body TEXT NOT NULL)');
  const app = baselineApp(discard(), (id, body) => pool.query({ name: 'insert', text: 'INSERT INTO requests (id, body) VALUES ($1, $2)', values: [id, body] }));
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url: address,
    async close() {
      await app.close();
      await pool.end();
    },
  };
}

/** Info and up when some lines are forwarded (request logging is off, so that stays a few lines), else warn. */
function benchLogger(forwardLogs) {
  if (!forwardLogs?.length) return createLogger(discard(), 'warn');
  const forward = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n')) {
        if (!line) continue;
        const entry = JSON.parse(line);
        if (forwardLogs.some((prefix) => String(entry.msg).startsWith(prefix))) process.send({ log: { ...entry, at: Date.now() } });
      }
      callback();
    },
  });
  return createLogger(forward, 'info', 'json');
}

async function startExpertq({ configFile, env, clockOffsetMs, forwardLogs, rollups = true }) {
  // For the A/B of the insight rollups' cost (bench/rollups.js): every rollup count dropped where it is made.
  if (!rollups) {
    const nothing = async () => {};
    Object.assign(PgInsights.prototype, { add: nothing, addTime: nothing, addToRequest: nothing, addEscalated: nothing, addAsked: nothing });
  }
  const server = await startServer({
    ...(clockOffsetMs ? { clock: { now: () => Date.now() - clockOffsetMs } } : {}),
    configPath: configFile,
    port: 0,
    env: { ...process.env, ...env },
    out: discard(),
    logger: benchLogger(forwardLogs),
  });
  return { url: server.url, close: () => server.close() };
}

try {
  const server = options.kind === 'baseline' ? await startBaseline(options) : await startExpertq(options);
  process.on('message', (message) => {
    if (message !== 'stop') return;
    server.close().then(
      () => process.exit(0),
      (error) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
  process.send({ url: server.url });
} catch (error) {
  process.send({ error: error instanceof Error ? error.stack ?? error.message : String(error) }, () => process.exit(1));
}
