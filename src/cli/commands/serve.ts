import { Option, type Command } from 'commander';
import { portOverride } from '../../config/load-config.js';
import { resolveConfigPath } from '../../config/resolve-config-path.js';

/** A stopping server exits within this, finished or not. */
const SHUTDOWN_DEADLINE_MS = 5_000;

/**
 * `expertq serve`: the server in this process until SIGTERM or SIGINT, then a graceful stop bounded by
 * a deadline, so a restart never waits on a slow webhook or a stuck client.
 */
export function addServeCommand(program: Command): void {
  program
    .command('serve')
    .description('start the HTTP API, approval UI and transport')
    .addOption(new Option('--transport <name>', 'how asks reach experts: console, chat (Slack alone) or channels (every channel the config file sets up); default: channels when the file sets one up (chat:, email:), else console').choices(['console', 'chat', 'channels']))
    .option('--port <n>', 'listen on this port (default: $PORT, else server.port)')
    .action(async (opts: { transport?: 'console' | 'chat' | 'channels'; port?: string }) => {
      const { startServer } = await import('../../server.js');
      const port = portOverride(opts.port, '--port');
      const config = resolveConfigPath(program.opts<{ config?: string }>().config);
      const server = await startServer({ configPath: config.path, configFrom: config.from, transport: opts.transport ?? 'auto', ...(port !== undefined ? { port } : {}) });
      const stop = async (signal: string) => {
        server.service.log.info({ signal }, 'shutting down');
        // Whatever is left after the deadline is dropped: committed work waits in the database for the next start.
        setTimeout(() => {
          server.service.log.error({ signal, deadline_ms: SHUTDOWN_DEADLINE_MS }, 'shutdown did not finish in time; exiting anyway');
          process.exit(1);
        }, SHUTDOWN_DEADLINE_MS).unref();
        await server.close();
        process.exit(0);
      };
      // SIGHUP reads the config file again and applies its experts (as a change to the file does).
      process.on('SIGHUP', () => server.expertq.reloadExperts('SIGHUP'));
      process.once('SIGINT', () => void stop('SIGINT'));
      process.once('SIGTERM', () => void stop('SIGTERM'));
    });
}
