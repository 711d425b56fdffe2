import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { EXAMPLE_EXPERTS } from '../support/build-test-app.js';
import { cleanEnv, freePort, TEST_TOKEN } from '../support/cli.js';
import { ServerChild } from '../support/server-child.js';
import { until } from '../support/until.js';

/** `expertq serve` follows its config file: an edit reloads the experts, and SIGHUP reads the file again without stopping. */
describe('serve and the config file', () => {
  let dir: string;
  let configFile: string;
  let server: ServerChild;
  let base: string;
  let config: Record<string, unknown>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'expertq-reload-'));
    const port = await freePort();
    base = `http://127.0.0.1:${port}/api/v1`;
    configFile = join(dir, 'service.yaml');
    config = { org: { name: 'Acme', timezone: 'UTC' }, server: { port, host: '127.0.0.1' }, experts: EXAMPLE_EXPERTS };
    writeFileSync(configFile, stringify(config));
    server = new ServerChild(configFile, cleanEnv({ SERVICE_API_TOKEN: TEST_TOKEN, LOG_LEVEL: 'debug' }));
    await server.start();
  });
  afterAll(async () => {
    await server?.kill9();
    rmSync(dir, { recursive: true, force: true });
  });

  const expertIds = async () => {
    const res = await fetch(`${base}/experts`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    return ((await res.json()) as Array<{ id: string }>).map((e) => e.id);
  };

  it('an edited experts section is live without a restart', async () => {
    writeFileSync(configFile, stringify({ ...config, experts: [...EXAMPLE_EXPERTS, { id: 'ravi', name: 'Ravi Patel', topics: ['tax'] }] }));
    await until(async () => (await expertIds()).includes('ravi'), 10_000, 'GET /experts lists ravi', () => server.diagnostics());
    expect(server.starts).toBe(1);
  });

  it('SIGHUP reads the file again and the server keeps serving', async () => {
    server.signal('SIGHUP');
    await until(() => server.diagnostics().includes('"trigger":"SIGHUP"'), 10_000, 'the server logs a reload on SIGHUP', () => server.diagnostics());
    expect(server.running).toBe(true);
    expect(await expertIds()).toEqual(['dana', 'lee', 'sam', 'ravi']);
    expect(server.errors).toEqual([]);
  });
});
