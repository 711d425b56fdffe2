import type { Command } from 'commander';
import { loadConfig, type Config } from '../config/load-config.js';
import { resolveConfigPath } from '../config/resolve-config-path.js';

/**
 * Commands that work on the database file itself, on the machine that holds it (not through the API):
 * `backup`, `restore` and `prune`. They read `storage` from the same configuration `serve` uses. What
 * they do is in `database-actions.ts`, loaded when one of them runs: the database drivers and the
 * service it needs would otherwise slow the start of every other command.
 */
export function addLocalCommands(program: Command, say: (line?: string) => void): void {
  const configPath = (): string => resolveConfigPath(program.opts<{ config?: string }>().config).path;
  const config = (): Config => loadConfig(configPath());
  const actions = () => import('./database-actions.js');

  program
    .command('backup <file>')
    .description('write a consistent copy of the database to <file>, safe while the server runs (SQLite online backup)')
    .option('--force', 'overwrite <file> if it exists')
    .action(async (file: string, opts: { force?: boolean }) => {
      const c = config();
      await (await actions()).backup(c, configPath(), file, opts, say);
    });

  program
    .command('restore <file>')
    .description('replace the database with a backup (the server must be stopped; the current database is kept aside)')
    .action(async (file: string) => {
      const c = config();
      (await actions()).restore(c, file, say);
    });

  program
    .command('prune')
    .description('remove rows past storage.retention (and storage.retention_requests) now; the server also does it hourly')
    .option('--dry-run', 'print what would be removed and remove nothing')
    .action(async (opts: { dryRun?: boolean }) => {
      const c = config();
      await (await actions()).prune(c, opts, say);
    });
}
