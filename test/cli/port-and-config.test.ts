import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, CLI_TEST_TIMEOUT_MS, EXAMPLE_CONFIG, freePort, ROOT, runCli, startServe, TEST_TOKEN, type ServerProcess } from '../support/cli.js';

/** A copy of the example configuration in `dir` under `name`, on `port`, with its database in `dir`. */
function writeConfig(dir: string, name: string, port: number): string {
  const file = join(dir, name);
  copyFileSync(EXAMPLE_CONFIG, file);
  const doc = parseDocument(readFileSync(file, 'utf8'));
  doc.setIn(['server', 'port'], port);
  doc.setIn(['storage', 'path'], join(dir, 'expertq.db'));
  writeFileSync(file, doc.toString());
  return file;
}

/** The "expertq is serving" line, parsed. */
function servingLine(server: ServerProcess): Record<string, unknown> {
  const line = server.stdout().split('\n').find((l) => l.includes('"msg":"expertq is serving"'))!;
  return JSON.parse(line) as Record<string, unknown>;
}

describe('npm start and the CLI use one configuration and one port', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  let dir: string;
  let server: ServerProcess | null = null;
  afterEach(async () => {
    await server?.stop();
    server = null;
    rmSync(dir, { recursive: true, force: true });
  });

  it('npm start serves ./service.yaml when there is one, says so, and the CLI finds the same server', async () => {
    dir = mkdtempSync(join(tmpdir(), 'expertq-start-'));
    writeConfig(dir, 'service.example.yaml', await freePort());
    const port = await freePort();
    const chosen = writeConfig(dir, 'service.yaml', port);
    // The start script as npm runs it, with this clone's CLI, in a folder holding both files.
    const script = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start!;
    expect(script).not.toContain('--config');
    server = await startServe(chosen, cleanEnv({ SERVICE_API_TOKEN: TEST_TOKEN }), script.replace('node dist/cli/main.js', `"${process.execPath}" "${BIN}"`));
    expect(server.url).toBe(`http://127.0.0.1:${port}`);
    expect(servingLine(server)).toMatchObject({ config: chosen, config_from: './service.yaml' });
    const queue = await runCli(['queue'], { cwd: dir, env: cleanEnv({ SERVICE_API_TOKEN: TEST_TOKEN }) });
    expect(queue.stderr).toBe('');
    expect(queue.stdout).toMatch(/^Nothing pending$/m);
  });

  it('PORT moves both the server and the client commands; serve --port wins over PORT', async () => {
    dir = mkdtempSync(join(tmpdir(), 'expertq-port-'));
    const file = writeConfig(dir, 'service.yaml', await freePort());
    const port = await freePort();
    const env = cleanEnv({ SERVICE_API_TOKEN: TEST_TOKEN, PORT: String(port) });
    server = await startServe(file, env);
    expect(server.url).toBe(`http://127.0.0.1:${port}`);
    const queue = await runCli(['queue'], { cwd: dir, env });
    expect(queue.stderr).toBe('');
    expect(queue.stdout).toMatch(/^Nothing pending$/m);
    // Without PORT the client looks at server.port, where nothing listens, and says where it looked.
    const without = await runCli(['queue', '--timeout', '2'], { cwd: dir, env: cleanEnv({ SERVICE_API_TOKEN: TEST_TOKEN }) });
    expect(without.code).toBe(1);
    expect(without.stderr).toMatch(/from server\.port in/);
    await server.stop();

    const flagPort = await freePort();
    server = await startServe(file, env, `"${process.execPath}" "${BIN}" serve --port ${flagPort}`);
    expect(server.url).toBe(`http://127.0.0.1:${flagPort}`);
  });

  it('under PORT, the console transport\'s reply command reaches the server when pasted as printed', async () => {
    dir = mkdtempSync(join(tmpdir(), 'expertq-port-'));
    const file = writeConfig(dir, 'service.yaml', await freePort());
    const port = await freePort();
    const env = cleanEnv({ SERVICE_API_TOKEN: TEST_TOKEN, PORT: String(port) });
    server = await startServe(file, env);
    const asked = await runCli(['ask', 'Are disputed invoices paused for dunning?', '--topic', 'billing', '--because', 'a customer asked'], { cwd: dir, env });
    expect(asked.code, asked.stderr).toBe(0);
    const requestId = asked.stdout.match(/^(req_\S+) queued$/m)![1]!;
    const message = await server.waitForMessage((m) => m.includes(requestId));
    const hint = message.match(/reply with: (.+)$/m)![1]!;
    // Pasted into another shell, in another folder, without the server's PORT: it still answers this ask.
    const pasted = spawnSync('sh', ['-c', hint.replace('<answer>', 'Yes, dunning waits.')], { cwd: tmpdir(), env: cleanEnv({ SERVICE_API_TOKEN: TEST_TOKEN }), encoding: 'utf8' });
    expect(pasted.stderr).toBe('');
    expect(pasted.status).toBe(0);
    expect(pasted.stdout).toMatch(/^proposed .*prop_/);
    expect(hint).toContain(`--url http://127.0.0.1:${port}`);
  });

  it('refuses a PORT or --port that is not a port number, naming it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'expertq-port-'));
    writeConfig(dir, 'service.yaml', await freePort());
    const bad = await runCli(['queue'], { cwd: dir, env: cleanEnv({ SERVICE_API_TOKEN: TEST_TOKEN, PORT: 'eighty' }) });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/PORT must be a port number \(1 to 65535\), not "eighty"/);
    const flag = await runCli(['serve', '--port', '70000'], { cwd: dir, env: cleanEnv({ SERVICE_API_TOKEN: TEST_TOKEN }) });
    expect(flag.code).not.toBe(0);
    expect(flag.stderr).toMatch(/--port must be a port number \(1 to 65535\), not "70000"/);
  });
});
