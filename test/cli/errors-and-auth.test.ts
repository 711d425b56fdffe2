import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {cleanEnv, CLI_TEST_TIMEOUT_MS, cliFor, freePort, runCli, TEST_TOKEN, useServedWorkspace } from '../support/cli.js';

/** Exit codes and messages a user sees when something goes wrong: 1 = operation failed, 2 = usage. */

const served = useServedWorkspace();
const { cli } = served;

describe('operation failures exit 1 with the reason on stderr', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('accepting an unknown proposal reports 404 not_found', async () => {
    const result = await cli('accept', 'prop_doesnotexist', '--decided-by', 'alice');
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^expertq: 404 not_found: .*prop_doesnotexist/);
    expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('a mistyped --config is an error, not a silent fall-back to the default port', async () => {
    const result = await runCli(['queue', '--config', join(served.ws.dir, 'servce.yaml')], { env: cleanEnv({ SERVICE_API_TOKEN: TEST_TOKEN }), cwd: served.ws.dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`expertq: Configuration file not found: ${join(served.ws.dir, 'servce.yaml')} (from --config)\n`);
  });

  it('showing an unknown request reports 404 not_found', async () => {
    const result = await cli('request', 'req_doesnotexist');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/404 not_found: .*req_doesnotexist/);
  });

  it('a reply from an expert with no open ask reports 404', async () => {
    const result = await cli('reply', 'sam', 'Roll back first.');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/404 not_found/);
  });

  it('an invalid submission reports 400 with the field that is wrong', async () => {
    const result = await cli('ask', 'Why?', '--topic', 'billing', '--because', 'x'.repeat(501));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/400 bad_request/);
    expect(result.stderr).toMatch(/asked_because/);
  });

  it('an unreachable server (--url http://127.0.0.1:1) is named, with a hint', async () => {
    const result = await cli('--url', 'http://127.0.0.1:1', 'queue');
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/Cannot reach expertq at http:\/\/127\.0\.0\.1:1\b/);
    expect(result.stderr).toMatch(/expertq serve/);
  });

  it('a port nobody listens on is reported the same way', async () => {
    const port = await freePort();
    const result = await cli('--url', `http://127.0.0.1:${port}`, 'experts');
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`expertq: Cannot reach expertq at http://127.0.0.1:${port} (from --url): nothing is listening there (ECONNREFUSED). Is "expertq serve" running there?\n`);
  });
});

describe('usage errors exit 2', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('an unknown command', async () => {
    const result = await cli('frobnicate');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown command 'frobnicate'/);
  });

  it('ask without --because says the option is required', async () => {
    const result = await cli('ask', 'What is the grace period?', '--topic', 'billing');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--because/);
  });

  it('--help exits 0 and lists the commands', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    for (const command of ['serve', 'init', 'queue', 'accept', 'reject', 'ask', 'request', 'audit', 'experts', 'reply']) {
      expect(result.stdout).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));
    }
  });
});

describe('authentication', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('the right token from the environment is accepted', async () => {
    const result = await cli('queue');
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('Nothing pending');
  });

  it('a wrong token exits 1 with the 401 unauthorized message', async () => {
    const wrong = cliFor(served.ws, cleanEnv({ SERVICE_API_TOKEN: 'not-the-token' }));
    const result = await wrong('queue');
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/401 unauthorized.*The token sent \(from SERVICE_API_TOKEN/);
    expect(result.stderr).not.toContain('not-the-token');
    expect(result.stderr).not.toContain(TEST_TOKEN);
  });

  it('no token at all exits 1 with 401, and the server keeps no state from the attempt', async () => {
    const none = cliFor(served.ws, cleanEnv());
    const result = await none('ask', 'Sneaky?', '--topic', 'billing', '--because', 'testing auth');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/401 unauthorized/);
    const requests = await cli('requests');
    expect(requests.stdout).not.toContain('Sneaky?');
  });

  it('the token is read from a .env file beside the config', async () => {
    const reviewer = mkdtempSync(join(tmpdir(), 'expertq-cli-dotenv-'));
    try {
      copyFileSync(served.ws.configFile, join(reviewer, 'service.yaml'));
      writeFileSync(join(reviewer, '.env'), `SERVICE_API_TOKEN=${TEST_TOKEN}\n`);
      const result = await runCli(['--config', join(reviewer, 'service.yaml'), 'experts'], { env: cleanEnv(), cwd: reviewer });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^dana\s+Dana Smith/m);
    } finally {
      rmSync(reviewer, { recursive: true, force: true });
    }
  });

  it('a token in the variable named by server.api_token_env is used', async () => {
    const reviewer = mkdtempSync(join(tmpdir(), 'expertq-cli-tokenenv-'));
    try {
      // Same server (same port), but this copy names another variable: the CLI must read that one.
      const yaml = readFileSync(served.ws.configFile, 'utf8').replace('api_token_env: SERVICE_API_TOKEN', 'api_token_env: MY_EXPERTQ_TOKEN');
      expect(yaml).toContain('MY_EXPERTQ_TOKEN');
      writeFileSync(join(reviewer, 'service.yaml'), yaml);
      const env = cleanEnv({ MY_EXPERTQ_TOKEN: TEST_TOKEN });
      const result = await runCli(['--config', join(reviewer, 'service.yaml'), 'queue'], { env, cwd: reviewer });
      expect(result.stderr).toBe('');
      expect(result.stdout.trim()).toBe('Nothing pending');
    } finally {
      rmSync(reviewer, { recursive: true, force: true });
    }
  });
});
