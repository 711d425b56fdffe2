import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, CLI_TEST_TIMEOUT_MS, EXAMPLE_CONFIG, freePort, runCli, startServe, TEST_TOKEN, type ServerProcess } from '../support/cli.js';

/** Server and CLI find the same configuration the same way, and a client never hangs on a wrong server. */
describe('the CLI finds the server', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  let dir: string;
  let server: ServerProcess | null = null;
  let silent: Server | null = null;
  afterEach(async () => {
    await server?.stop();
    server = null;
    silent?.close();
    silent = null;
    rmSync(dir, { recursive: true, force: true });
  });

  it('in a clone without service.yaml it uses service.example.yaml, as npm start does, even after its port changed', async () => {
    dir = mkdtempSync(join(tmpdir(), 'expertq-find-'));
    const example = join(dir, 'service.example.yaml');
    copyFileSync(EXAMPLE_CONFIG, example);
    const doc = parseDocument(readFileSync(example, 'utf8'));
    const port = await freePort();
    doc.setIn(['server', 'port'], port);
    doc.setIn(['storage', 'path'], join(dir, 'expertq.db'));
    writeFileSync(example, doc.toString());
    server = await startServe(example);
    const queue = await runCli(['queue'], { cwd: dir, env: cleanEnv({ SERVICE_API_TOKEN: TEST_TOKEN }) });
    expect(queue.stderr).toBe('');
    expect(queue.stdout).toMatch(/^Nothing pending$/m);
    // EXPERTQ_CONFIG names it from anywhere.
    const elsewhere = await runCli(['queue'], { cwd: tmpdir(), env: cleanEnv({ SERVICE_API_TOKEN: TEST_TOKEN, EXPERTQ_CONFIG: example }) });
    expect(elsewhere.stdout).toMatch(/^Nothing pending$/m);
  });

  it('a server that accepts but never answers: the request times out and the message names the URL and where it came from', async () => {
    dir = mkdtempSync(join(tmpdir(), 'expertq-find-'));
    silent = createServer(() => {}); // accepts connections, never answers
    const port = await new Promise<number>((resolve) => silent!.listen(0, '127.0.0.1', () => resolve((silent!.address() as { port: number }).port)));
    const started = Date.now();
    const result = await runCli(['queue', '--timeout', '1'], { cwd: dir, env: cleanEnv({ EXPERTQ_URL: `http://127.0.0.1:${port}` }) });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`Cannot reach expertq at http://127.0.0.1:${port} \\(from EXPERTQ_URL\\): no answer within 1 s \\(--timeout\\)`));
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('a 401 says which variable to set', async () => {
    dir = mkdtempSync(join(tmpdir(), 'expertq-find-'));
    const file = join(dir, 'service.yaml');
    copyFileSync(EXAMPLE_CONFIG, file);
    const doc = parseDocument(readFileSync(file, 'utf8'));
    doc.setIn(['server', 'port'], await freePort());
    doc.setIn(['storage', 'path'], join(dir, 'expertq.db'));
    writeFileSync(file, doc.toString());
    server = await startServe(file);
    const none = await runCli(['queue'], { cwd: dir, env: cleanEnv() });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/401 unauthorized: .* No token was sent: set EXPERTQ_TOKEN, or SERVICE_API_TOKEN \(server.api_token_env\), to the server's token\./);
    const wrong = await runCli(['queue'], { cwd: dir, env: cleanEnv({ SERVICE_API_TOKEN: 'wrong' }) });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/401 unauthorized: .* The token sent \(from SERVICE_API_TOKEN, server.api_token_env\) is not one this server knows/);
    const scoped = await runCli(['queue'], { cwd: dir, env: cleanEnv({ EXPERTQ_TOKEN: 'wrong' }) });
    expect(scoped.stderr).toMatch(/The token sent \(from EXPERTQ_TOKEN\) is not one this server knows/);
  });
});

describe('the CLI says things plainly', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('--version prints the version; a usage error prints one line and a hint, not the whole help; help marks required options', async () => {
    const version = await runCli(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const usage = await runCli(['ask', 'Why?', '--topic', 'billing']);
    expect(usage.code).toBe(2);
    expect(usage.stderr.trim().split('\n')).toEqual(["expertq: required option '--because <reason>' not specified", '(add --help for usage)']);
    const help = await runCli(['ask', '--help']);
    expect(help.stdout).toMatch(/--because <reason>\s+why you are stuck \(shown to the expert\) \(required\)/);
    // A command's help also lists the options every client command takes, and the variables.
    expect(help.stdout).toMatch(/--timeout <seconds>\s+seconds to wait for the server on each request\s+\(default:\s+10\)/);
    expect(help.stdout).toMatch(/--url <url>\s+server URL \(default:\s+\$EXPERTQ_URL/);
    const top = await runCli(['--help']);
    expect(top.stdout).toMatch(/EXPERTQ_TOKEN\s+bearer token/);
    const unknown = await runCli(['queue', '--colour']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split('\n')).toEqual(["expertq: unknown option '--colour'", '(add --help for usage)']);
  });

  it('a reader that stops early (| head -1) ends the command quietly, exit 0, no stack trace', async () => {
    const child = spawn(process.execPath, [BIN, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy(); // the reader is gone before the first write
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += String(chunk)));
    const code = await new Promise<number | null>((resolveExit) => child.once('close', resolveExit));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
