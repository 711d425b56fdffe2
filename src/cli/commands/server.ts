import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CliError } from '../cli-error.js';
import { PACKAGE_ROOT, type CliContext } from '../context.js';
import { addServeCommand } from './serve.js';
import { howToRun } from '../../config/how-to-run.js';

/** `serve`, `mcp`, `init` and `instances`: running expertq, writing its first configuration, and what runs. */
export function addServerCommands({ program, say, client, print, table }: CliContext): void {
  addServeCommand(program);

  program
    .command('instances')
    .description('the instances serving from this database: host, pid, version, when last seen, and warnings when they disagree (admin)')
    .action(async () => {
      const listed = await client().api.instances();
      print(listed, () => {
        table(
          ['INSTANCE', 'HOST', 'PID', 'VERSION', 'STARTED', 'LAST SEEN', 'REGISTRY', 'STATE'],
          listed.items.map((i) => [i.id, i.host, String(i.pid), i.version, i.started_at, i.last_seen, i.registry_hash, `${i.live ? 'live' : 'not seen for 30 s'}${i.this_instance ? ' (answered)' : ''}`]),
        );
        for (const warning of listed.warnings) say(`Warning: ${warning}`);
      });
    });

  program
    .command('mcp')
    .description('serve the MCP tools over stdio for an agent (a client of the running server; nothing but MCP on stdout)')
    .action(async () => {
      const c = client();
      const [{ StdioServerTransport }, { createMcpServer }, { httpBackend }] = await Promise.all([
        import('@modelcontextprotocol/sdk/server/stdio.js'),
        import('../../mcp/create-mcp-server.js'),
        import('../../mcp/http-backend.js'),
      ]);
      // A consumer token asks as its own consumer by default, as over /mcp.
      // Only the tools this token may use are listed.
      const me = await c.api.me().catch(() => null);
      const server = createMcpServer(httpBackend(c), {
        ...(me ? { role: me.role } : {}),
        ...(me?.role === 'consumer' && me.name ? { defaultConsumer: me.name } : {}),
      });
      await server.connect(new StdioServerTransport());
      process.stderr.write(`expertq mcp: MCP on stdio, calling ${c.base}\n`);
    });

  program
    .command('init')
    .description('write a commented configuration file to --config')
    .option('--force', 'overwrite an existing file')
    .action((opts: { force?: boolean }) => {
      const target = resolve(program.opts().config ?? 'service.yaml');
      if (existsSync(target) && !opts.force) throw new CliError(`${target} already exists; pass --force to overwrite it.`);
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(join(PACKAGE_ROOT, 'service.example.yaml'), target);
      say(`Wrote ${target}.`);
      // A random token in .env beside it (only this user may read it), unless there is one already.
      const dotenv = join(dirname(target), '.env');
      if (!existsSync(dotenv)) {
        writeFileSync(dotenv, `# Written by expertq init. The bearer token for the API, CLI, web UI and MCP:\nSERVICE_API_TOKEN=${randomBytes(32).toString('base64url')}\n`, { mode: 0o600 });
        say(`Wrote ${dotenv} with a random SERVICE_API_TOKEN (readable by you only); the server and the CLI read it from there.`);
      }
      say(`Edit org.name, storage.path and the experts, then run: ${howToRun(target, 'serve')}`);
    });
}
