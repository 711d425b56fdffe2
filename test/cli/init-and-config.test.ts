import { existsSync, statSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { BIN, CLI_TEST_TIMEOUT_MS, cleanEnv, EXAMPLE_CONFIG, freePort, runCli, startServe, TEST_TOKEN } from '../support/cli.js';

/** `expertq init` and what a user sees when the configuration is wrong or missing. */

let dir: string;
const env = cleanEnv({ SERVICE_API_TOKEN: TEST_TOKEN });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'expertq-cli-init-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('expertq init', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('writes a commented service.yaml that the server starts with', async () => {
    const file = join(dir, 'service.yaml');
    const result = await runCli(['init', '--config', file], { env, cwd: dir });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(file);
    // The hint works as printed, anywhere: no expertq on the PATH, so it names the binary, and the
    // config by its absolute path.
    const hint = result.stdout.match(/then run: (.+)$/m)![1]!;
    expect(hint).toBe(`node ${BIN} serve --config ${file}`);

    const text = readFileSync(file, 'utf8');
    expect(text.split('\n').filter((line) => line.trim().startsWith('#')).length).toBeGreaterThan(5);
    expect(text).toMatch(/^org:/m);
    expect(text).toMatch(/^experts:/m);
    expect(text).not.toContain(TEST_TOKEN); // secrets never go in the file
    // …they go in .env beside it: a random token only this user can read, and init says so.
    const dotenv = join(dir, '.env');
    expect(readFileSync(dotenv, 'utf8')).toMatch(/^SERVICE_API_TOKEN=[A-Za-z0-9_-]{43}$/m);
    expect(statSync(dotenv).mode & 0o777).toBe(0o600);
    expect(result.stdout).toMatch(/with a random SERVICE_API_TOKEN/);

    // Move it off the default port so the test never collides with a real server, keeping the comments.
    const doc = parseDocument(text);
    doc.setIn(['server', 'port'], await freePort());
    writeFileSync(file, doc.toString());
    expect(readFileSync(file, 'utf8')).toMatch(/^#/m);

    const server = await startServe(file, env, hint);
    try {
      const experts = await runCli(['--config', file, 'experts'], { env, cwd: dir });
      expect(experts.code).toBe(0);
      expect(experts.stdout).toMatch(/^dana\s+Dana Smith/m);
      expect(existsSync(join(dir, 'expertq.db'))).toBe(true); // storage next to the config
    } finally {
      await server.stop();
    }
  });

  it('refuses to overwrite an existing file without --force, leaving it unchanged', async () => {
    const file = join(dir, 'mine.yaml');
    expect((await runCli(['init', '--config', file], { env, cwd: dir })).code).toBe(0);
    const edited = `${readFileSync(file, 'utf8')}\n# my own edits\n`;
    writeFileSync(file, edited);

    const again = await runCli(['init', '--config', file], { env, cwd: dir });
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toContain(file);
    expect(again.stderr).toMatch(/already exists/);
    expect(again.stderr).toMatch(/--force/);
    expect(readFileSync(file, 'utf8')).toBe(edited);
  });

  it('overwrites with --force', async () => {
    const file = join(dir, 'forced.yaml');
    writeFileSync(file, 'org: {name: Old}\n');
    const result = await runCli(['init', '--config', file, '--force'], { env, cwd: dir });
    expect(result.code).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('Old');
    expect(text).toMatch(/^experts:/m);
    expect(text).toMatch(/^#/m);
  });

  it('without --config writes service.yaml in the current directory', async () => {
    const here = mkdtempSync(join(dir, 'cwd-'));
    const result = await runCli(['init'], { env, cwd: here });
    expect(result.code).toBe(0);
    expect(existsSync(join(here, 'service.yaml'))).toBe(true);
  });
});

describe('configuration errors', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  function badConfig(name: string): string {
    const file = join(dir, name);
    const doc = parseDocument(readFileSync(EXAMPLE_CONFIG, 'utf8'));
    doc.setIn(['defaults', 'escalation_after'], '2x');
    doc.deleteIn(['experts', 0, 'name']);
    writeFileSync(file, doc.toString());
    return file;
  }

  it('serve exits non-zero naming the file, each key path and the problem; nothing starts', async () => {
    const file = badConfig('bad.yaml');
    const result = await runCli(['serve', '--config', file], { env, cwd: dir });
    expect(result.code).not.toBe(0);
    expect(result.stdout).not.toContain('expertq is serving');
    expect(result.stderr).toContain(file);
    expect(result.stderr).toMatch(/defaults\.escalation_after: .*2x.*(duration)/);
    expect(result.stderr).toMatch(/experts\.0\.name: \S/);
    expect(result.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
  });

  it('a client command with the broken config reports the same problems', async () => {
    const file = badConfig('bad-client.yaml');
    const result = await runCli(['--config', file, 'queue'], { env, cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(file);
    expect(result.stderr).toMatch(/defaults\.escalation_after/);
  });

  it('broken YAML names the file', async () => {
    const file = join(dir, 'broken.yaml');
    writeFileSync(file, 'org:\n  name: [unclosed\n');
    const result = await runCli(['serve', '--config', file], { env, cwd: dir });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(file);
    expect(result.stderr).toMatch(/YAML/);
  });

  it('serve on a port that is already taken exits non-zero and names the address', async () => {
    const blocker = createServer();
    await new Promise<void>((ready) => blocker.listen(0, '127.0.0.1', ready));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const file = join(dir, 'busy.yaml');
      const doc = parseDocument(readFileSync(EXAMPLE_CONFIG, 'utf8'));
      doc.setIn(['server', 'port'], port);
      writeFileSync(file, doc.toString());
      const result = await runCli(['serve', '--config', file], { env, cwd: dir });
      expect(result.code).not.toBe(0);
      expect(result.stdout).not.toContain('expertq is serving');
      expect(result.stderr).toBe(
        `expertq: Port ${port} on 127.0.0.1 (from server.port in ${file}) is already in use; stop the other process, or choose another port with --port, PORT or server.port in ${file}.\n`,
      );
    } finally {
      await new Promise((closed) => blocker.close(closed));
    }
  });

  it('a missing config file gives a clear message and a non-zero exit', async () => {
    const file = join(dir, 'does-not-exist.yaml');
    const result = await runCli(['serve', '--config', file], { env, cwd: dir });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(file);
    expect(result.stderr).toMatch(/not found/i);
    expect(result.stderr).toMatch(/expertq init/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
