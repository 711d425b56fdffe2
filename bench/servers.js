// The servers under test, each on its own temp dir and SQLite file, listening on 127.0.0.1:0.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { clearInterval, setInterval, setTimeout } from 'node:timers';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import Fastify, { LogController } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { monotonicFactory } from 'ulid';
import { stringify } from 'yaml';
import { buildApp } from '../dist/app.js';
import { loadConfig } from '../dist/config/load-config.js';
import { configureLlm } from '../dist/llm/configure-llm.js';
import { submitRequestBody, submitResult } from '../dist/wire/schemas.js';
import { createLogger } from '../dist/log.js';
import { composeService } from '../dist/compose-service.js';
import { openSqliteStore } from '../dist/store/sqlite/sqlite-store.js';
import { ConsoleTransport } from '../dist/transport/console-transport.js';

/** A Writable that drops everything and counts what it was given (log lines, console output). */
export function discardStream() {
  const stream = new Writable({
    write(_chunk, _encoding, callback) {
      stream.writes++;
      callback();
    },
  });
  stream.writes = 0;
  return stream;
}

function tempDir(name) {
  return mkdtempSync(join(tmpdir(), `expertq-bench-${name}-`));
}

/**
 * The baseline server's app: expertq's submit body validation, then `insert(id, body)` (one
 * autocommitted INSERT, however the database takes it) and the same answer shape.
 */
export function baselineApp(logs, insert) {
  const nextId = monotonicFactory();
  const app = Fastify({
    loggerInstance: createLogger(logs, 'warn'),
    bodyLimit: 1_048_576,
    logController: new LogController({ disableRequestLogging: true }),
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.post('/api/v1/requests', {
    schema: { body: submitRequestBody, response: { 200: submitResult } },
    handler: async (req) => {
      const id = `req_${nextId()}`;
      await insert(id, JSON.stringify(req.body));
      return { request_id: id, status: 'queued', request_status: 'asked' };
    },
  });
  return app;
}

/**
 * Baseline: bare Fastify 5, one POST route validated by the same zod schema through
 * fastify-type-provider-zod, one autocommitted INSERT per request into a fresh WAL + synchronous=FULL
 * database. The floor any real work in expertq is measured against.
 */
export async function startBaseline() {
  const dir = tempDir('baseline');
  const db = new Database(join(dir, 'baseline.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE requests (id TEXT PRIMARY KEY, body TEXT NOT NULL) STRICT');
  const insert = db.prepare('INSERT INTO requests (id, body) VALUES (?, ?)');
  const logs = discardStream();
  const app = baselineApp(logs, (id, body) => insert.run(id, body));
  const url = await app.listen({ port: 0, host: '127.0.0.1' });

  return {
    name: 'baseline',
    url,
    stats() {
      return { rows: db.prepare('SELECT COUNT(*) AS n FROM requests').get().n, logLines: logs.writes };
    },
    async close() {
      await app.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * For the A/B of the insight rollups' cost (bench/rollups.js): the same build with every rollup count
 * dropped where it is made, so nothing is gathered, read for it or written.
 */
function switchOffRollups(store) {
  const nothing = async () => {};
  Object.assign(store.tx.insights, { add: nothing, addTime: nothing, addToRequest: nothing, addEscalated: nothing, addAsked: nothing });
}

/**
 * Writes `dir/service.yaml` for the benchmark org with the given sections (experts, defaults, llm,
 * storage, …) and returns its path.
 */
export function writeConfig(dir, sections) {
  const configFile = join(dir, 'service.yaml');
  writeFileSync(configFile, stringify({ org: { name: 'Bench Org', timezone: 'UTC' }, ...sections }));
  return configFile;
}

/**
 * The real expertq app, wired as src/server.ts wires it (config file → store → console transport →
 * service → app → listen), with the console output and logs discarded. `database`, when given, is a
 * SQLite file (checkpointed, no WAL beside it) copied in as the server's database before it opens.
 */
export async function startExpertq({ experts, defaults, llm, database, rollups = true }) {
  const dir = tempDir('expertq');
  const config = loadConfig(writeConfig(dir, { experts, defaults, ...(llm ? { llm } : {}) }));
  if (database) copyFileSync(database, config.storagePath);

  const logs = discardStream();
  const out = discardStream();
  const log = createLogger(logs, 'warn');
  const store = openSqliteStore(config.storagePath);
  // As the real server: the insight rollups' days and weeks follow org.timezone.
  if (rollups) await store.keepInsightsIn(config.org.timezone);
  else switchOffRollups(store);
  const transport = new ConsoleTransport(log, out, (id) => service.experts.get(id)?.name ?? id);
  const service = composeService({ config, store, transport, log, llm: configureLlm(config, { llmApiKey: undefined }, log) });
  const app = await buildApp({ service, credentials: [], logger: log, bodyLimit: config.server.body_limit });
  await transport.start(async (reply) => {
    service.receiveReply({ expert_id: reply.expertId, text: reply.text, request_id: reply.requestId });
  });
  // As the real server: the scheduler ticks every tick_ms (it also kicks the dispatchers and the LLM worker).
  service.kick();
  const retry = setInterval(() => void service.tick(), config.server.tick_ms);
  retry.unref();
  const url = await app.listen({ port: 0, host: '127.0.0.1' });

  const count = (sql) => Object.fromEntries(store.db.prepare(sql).all().map((r) => [r.k, r.n]));
  return {
    name: 'expertq',
    url,
    service,
    /** Folds the insight rollups' journal now; resolves with how long it took (ms). */
    async foldInsights() {
      const started = performance.now();
      await store.foldInsights();
      return performance.now() - started;
    },
    /**
     * Waits for the outbox to drain (and, with an LLM, for every draft to end: drafted, or fallen back at
     * its deadline), then counts what the run left in the database.
     */
    async stats() {
      const drafting = () => store.db.prepare('SELECT COUNT(*) AS n FROM requests WHERE drafting = 1').get().n;
      const deadline = Date.now() + (service.llm?.timeoutMs ?? 0) + 10_000;
      while (drafting() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      await service.idle();
      return {
        experts: service.experts.experts.length,
        requests: count('SELECT status AS k, COUNT(*) AS n FROM requests GROUP BY status'),
        asks: count('SELECT state AS k, COUNT(*) AS n FROM asks GROUP BY state'),
        messages: count('SELECT state AS k, COUNT(*) AS n FROM messages GROUP BY state'),
        drafts: count(`SELECT CASE WHEN asked_question IS NOT NULL THEN 'drafted' WHEN drafting = 1 THEN 'drafting' ELSE 'raw' END AS k,
          COUNT(*) AS n FROM requests GROUP BY k`),
        consoleWrites: out.writes,
        logLines: logs.writes,
      };
    },
    async close() {
      clearInterval(retry);
      await app.close();
      service.llmWorker?.stop();
      await service.idle();
      await transport.stop();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
