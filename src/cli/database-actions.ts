import { chmodSync, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { readEnv, readSecrets, type Config } from '../config/load-config.js';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { isEmpty, type PruneCounts } from '../store/retention.js';
import { pruneInSlices, cutoffsAt } from '../service/operations/index.js';
import { backupDatabase, integrityOf, MaintenanceError, openForMaintenance, restoreDatabase, syncFile } from '../store/sqlite/maintenance.js';
import { CliError } from './cli-error.js';
import { howToRun } from '../config/how-to-run.js';

/**
 * What `backup`, `restore` and `prune` do. `local-commands.ts` loads this module only when one of them
 * runs, so every other command starts without the database drivers and the service.
 */

type Say = (line?: string) => void;

/** `backup` and `restore` copy SQLite files; a PostgreSQL database has its own tools. */
function sqliteOnly(c: Config, what: string): void {
  if (c.storage.url_env === undefined) return;
  throw new CliError(
    `expertq ${what} works on a SQLite file; this configuration uses PostgreSQL (storage.url_env). ` +
      'Use pg_dump and pg_restore, or your provider\'s snapshots (docs/deployment.md, "Backups" under "Several instances").',
  );
}

export async function backup(c: Config, configPath: string, file: string, opts: { force?: boolean }, say: Say): Promise<void> {
  sqliteOnly(c, 'backup');
  const source = c.storagePath;
  const target = resolve(file);
  if (!existsSync(source)) throw new CliError(`There is no database at ${source} (storage.path) to back up.`);
  if (target === source) throw new CliError('The backup file cannot be the database itself.', 2);
  if (existsSync(target) && !opts.force) throw new CliError(`${target} already exists; pass --force to overwrite it.`);
  const started = performance.now();
  const partial = `${target}.partial`;
  try {
    await backupDatabase(source, partial);
  } catch (error) {
    rmSync(partial, { force: true });
    throw new CliError(error instanceof MaintenanceError ? error.message : `Backup failed: ${(error as Error).message}`);
  }
  const check = integrityOf(partial, { standalone: true });
  if (check !== 'ok') {
    rmSync(partial, { force: true });
    throw new CliError(`The copy failed its integrity check (${check}); nothing was written to ${target}.`);
  }
  chmodSync(partial, 0o600); // it holds consumers' signing secrets, like the database
  syncFile(partial);
  renameSync(partial, target);
  const mb = (statSync(target).size / 1_048_576).toFixed(1);
  say(`Backed up ${source} to ${target} (${mb} MB, integrity ok) in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
  say(`Restore it with: ${howToRun(configPath, `restore ${file}`)} (the server must be stopped)`);
}

export function restore(c: Config, file: string, say: Say): void {
  sqliteOnly(c, 'restore');
  const source = resolve(file);
  const target = c.storagePath;
  if (!existsSync(source)) throw new CliError(`No such backup file: ${source}`);
  const check = integrityOf(source);
  if (check !== 'ok') throw new CliError(`${source} is not a sound database (${check}); nothing was changed.`);
  // The server's lock is taken first: holding it proves no server runs on this database now.
  const { aside } = restoreDatabase(source, target);
  say(`Restored ${target} from ${source}.`);
  if (aside) say(`The database it replaced is kept as ${aside}.`);
  say('Start the server; it applies any newer migrations at start.');
}

export async function prune(c: Config, opts: { dryRun?: boolean }, say: Say): Promise<void> {
  const settings = { retention: c.storage.retention, retentionRequests: c.storage.retention_requests };
  if (settings.retention === null && settings.retentionRequests === null) {
    throw new CliError(`Neither storage.retention nor storage.retention_requests is set in ${c.file}: nothing is ever pruned.`);
  }
  const cutoffs = cutoffsAt(settings, Date.now());
  let store: Store;
  try {
    // PostgreSQL is shared: pruning beside running servers is what they do themselves every hour.
    store =
      c.storage.url_env === undefined
        ? openForMaintenance(c.storagePath, { readonly: Boolean(opts.dryRun) })
        : await openStore({ urlEnv: c.storage.url_env, url: readSecrets(c, readEnv(c.file, process.env)).databaseUrl, poolSize: 2 });
  } catch (error) {
    throw error instanceof MaintenanceError ? new CliError(error.message) : error;
  }
  try {
    const when = (at: number | null) => (at === null ? 'kept (no retention set)' : `before ${new Date(at).toISOString()}`);
    say(`Outbox rows: ${when(cutoffs.outboxBefore)}; finished requests: ${when(cutoffs.requestsBefore)}.`);
    if (opts.dryRun) {
      printCounts(say, await store.retention.countPrunable(cutoffs), 'would be removed');
      return;
    }
    // In slices of a few milliseconds, as the server prunes: a running server shares the database.
    printCounts(say, await pruneInSlices(store, cutoffs), 'removed');
  } finally {
    await store.close();
  }
}

function printCounts(say: (line?: string) => void, counts: PruneCounts, verb: string): void {
  const labels: Record<keyof PruneCounts, string> = {
    deliveries: 'deliveries (delivered)',
    messages: 'messages to experts (sent)',
    events: 'event bodies',
    chat_events: 'chat event ids',
    llm_jobs: 'LLM jobs (finished)',
    requests: 'requests (finished)',
    proposals: 'proposals of those requests',
    audit: 'audit rows of those requests',
  };
  const width = Math.max(...Object.values(counts).map((n) => n.toLocaleString('en-US').length));
  for (const key of Object.keys(labels) as Array<keyof PruneCounts>) {
    say(`  ${counts[key].toLocaleString('en-US').padStart(width)}  ${labels[key]}`);
  }
  say(isEmpty(counts) ? `Nothing ${verb}.` : `${Object.values(counts).reduce((a, b) => a + b, 0).toLocaleString('en-US')} rows ${verb}.`);
}
