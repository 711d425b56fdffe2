// `node bench/pg-profile.js [baseline]`: where a PostgreSQL submit load spends its time. Starts a
// throwaway PostgreSQL with pg_stat_statements, one expertq instance (or the bare baseline) on a fresh
// database, loads it with submits for BENCH_SECONDS (default 10), then prints the throughput, the CPU
// seconds each process used (the machine's idle time among them: what the load left unused), the
// statements by number of calls with their total and slowest run times and the WAL each wrote, each
// table and index by size (bytes a row costs), and each table's scans.
// PROFILE_RATE=<n> holds the load to n requests per second (CPU per request then compares across
// changes better than throughput does); PROFILE_SQL=<statement>[;;<statement>…] runs statements on the fresh database
// before the load (a setting to try). Needs `npm run build` first. Not part of `npm run bench`: a tool for finding what to make cheaper.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateExperts, topicPool } from './fixtures.js';
import { benchSeconds, runSubmitLoad } from './load.js';
import { DURABLE_FLAGS, startExpertqOnPg, startPostgres, startServerChild } from './pg-servers.js';
import { EXPERT_COUNT, UNCAPPED } from './submit.js';

DURABLE_FLAGS.push('-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track=all', '-c', 'pg_stat_statements.track_planning=on');

/** CPU seconds used so far by each kind of process, and the machine's idle and total seconds. */
function cpuSeconds() {
  const by = {};
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let stat;
    let cmd;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const kind = cmd.includes('pg-server-child') ? 'server' : cmd.includes('postgres') ? 'postgres' : cmd.includes('pg-profile') ? 'this script' : 'other';
    by[kind] = (by[kind] ?? 0) + (Number(fields[11]) + Number(fields[12])) / 100;
  }
  const machine = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  by['machine idle'] = machine[3] / 100;
  by['machine iowait'] = machine[4] / 100;
  by['machine softirq'] = machine[6] / 100;
  by['machine total'] = machine.reduce((a, b) => a + b, 0) / 100;
  return by;
}

const STATEMENTS = `SELECT calls, round(total_exec_time::numeric, 1) AS exec_ms, round(total_plan_time::numeric, 1) AS plan_ms,
    round(max_exec_time::numeric, 2) AS max_ms, rows, wal_records, wal_fpi, wal_bytes, left(regexp_replace(query, '\\s+', ' ', 'g'), 140) AS query
  FROM pg_stat_statements ORDER BY calls DESC LIMIT 30`;
const SIZES = `SELECT c.relname AS name, c.relkind AS kind, pg_relation_size(c.oid) AS bytes,
    CASE WHEN c.relkind = 'r' THEN (SELECT n_live_tup FROM pg_stat_user_tables s WHERE s.relid = c.oid) END AS rows
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'i') AND pg_relation_size(c.oid) > 8192 ORDER BY 3 DESC`;
const TABLES = `SELECT relname, seq_scan, seq_tup_read, idx_scan, idx_tup_fetch, n_tup_ins, n_tup_upd, n_tup_hot_upd
  FROM pg_stat_user_tables WHERE seq_scan > 0 OR n_tup_ins > 0 ORDER BY seq_tup_read DESC, relname`;

const kind = process.argv[2] === 'baseline' ? 'baseline' : 'expertq';
const pg = await startPostgres();
const dir = mkdtempSync(join(tmpdir(), 'expertq-pg-profile-'));
try {
  const url = await pg.createDatabase('profile');
  await pg.query(url, 'CREATE EXTENSION pg_stat_statements');
  const server =
    kind === 'baseline'
      ? await startServerChild('baseline', { kind: 'baseline', url, poolSize: 10 })
      : await startExpertqOnPg('expertq', { dir, experts: generateExperts(EXPERT_COUNT, topicPool()), defaults: UNCAPPED, url, poolSize: 10 });
  for (const sql of (process.env.PROFILE_SQL ?? '').split(';;').filter((s) => s.trim())) await pg.query(url, sql);
  await pg.query(url, 'SELECT pg_stat_statements_reset()');
  const before = cpuSeconds();
  const rate = Number(process.env.PROFILE_RATE) || undefined;
  const result = await runSubmitLoad({ url: server.url, seconds: benchSeconds(), rate });
  const after = cpuSeconds();
  console.log(`${kind}: ${result.requestsPerSec.toFixed(1)} req/s, ${result.total} requests, p99 ${result.latencyP99} ms`);
  console.log('CPU seconds (the load generator, which has exited, is the rest of the machine total):');
  for (const key of Object.keys(after)) console.log(`  ${key.padEnd(14)} ${(after[key] - (before[key] ?? 0)).toFixed(2)}`);
  console.log('\nstatements (calls, total ms, planning ms, slowest ms, rows, WAL records, full-page images, WAL bytes, text):');
  for (const r of await pg.query(url, STATEMENTS)) {
    console.log(`  ${r.calls}  ${r.exec_ms}  ${r.plan_ms}  ${r.max_ms}  ${r.rows}  ${r.wal_records}  ${r.wal_fpi}  ${r.wal_bytes}  ${r.query}`);
  }
  console.log('\nrelations by size (bytes; tables with their rows):');
  for (const r of await pg.query(url, SIZES)) console.log(`  ${r.bytes}  ${r.kind}  ${r.name}${r.rows === null ? '' : `  rows ${r.rows}`}`);
  console.log('\ntables:');
  for (const r of await pg.query(url, TABLES)) console.log(`  ${JSON.stringify(r)}`);
  await server.close();
} finally {
  await pg.close();
  rmSync(dir, { recursive: true, force: true });
}
// A connection or timer left behind must not keep the process alive.
process.exit(0);
