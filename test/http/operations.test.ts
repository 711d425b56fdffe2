import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server.js';
import { captureLogger } from '../support/capture.js';

let dir: string;
let configFile: string;
const running: RunningServer[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'expertq-ops-'));
  configFile = join(dir, 'service.yaml');
  writeFileSync(configFile, stringify({ org: { name: 'Acme' }, experts: [{ id: 'dana', name: 'Dana Smith', topics: ['billing'] }] }));
});
afterEach(async () => {
  for (const s of running.splice(0)) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

async function start(): Promise<RunningServer> {
  const { log } = captureLogger();
  const server = await startServer({ configPath: configFile, env: { SERVICE_API_TOKEN: 'ops-token' }, logger: log, port: 0, out: { write: () => true } as never });
  running.push(server);
  return server;
}

describe('health checks', () => {
  it('GET /healthz and /readyz answer without a token; /readyz names a failing check with 503', async () => {
    const server = await start();
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: 'ok', channels: ['console'] });
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', transport: 'ok', dispatchers: 'ok', scheduler: 'ok' } });

    server.service.messages.stop();
    const failing = await fetch(`${server.url}/readyz`);
    expect(failing.status).toBe(503);
    expect(await failing.json()).toEqual({
      error: { code: 'unavailable', message: expect.stringMatching(/^Not ready: dispatchers: the outbox dispatchers are stopped/), details: [{ path: 'dispatchers', message: expect.any(String) }] },
    });
  });
});

describe('one process per database', () => {
  it('refuses a second server on the same database, naming the process that holds it', async () => {
    await start();
    await expect(start()).rejects.toThrow(new RegExp(`is in use by process ${process.pid} \\(started `));
  });

  it('releases its lock on close: the next server starts on the same database', async () => {
    const first = await start();
    await first.close();
    running.splice(0);
    const second = await start();
    expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
  });
});
