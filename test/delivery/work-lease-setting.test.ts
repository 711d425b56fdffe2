import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { wireService } from '../../src/compose-service.js';
import { ConfigError, parseConfig, readSecrets } from '../../src/config/load-config.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { submitBody, testConfigYaml } from '../support/build-test-app.js';
import { captureLogger } from '../support/capture.js';
import { FakeClock } from '../support/fake-clock.js';
import { RecordingTransport } from '../support/shared-database.js';

/**
 * `server.work_lease`: how long a claim on work lasts. Two processes wired from the same configuration
 * share one database; when the one sending a message dies, the other takes the message over once the
 * configured lease has run out, not the default 15 s.
 */

let dir: string;
const stores: SqliteStore[] = [];

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  dir = mkdtempSync(join(tmpdir(), 'expertq-work-lease-'));
});

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(stores.splice(0).map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

const file = () => join(dir, 'service.yaml');

async function instance(server: Record<string, unknown>, clock: FakeClock, transport: RecordingTransport) {
  const config = parseConfig(testConfigYaml({ server }), file());
  const store = openSqliteStore(join(dir, 'db.sqlite'));
  stores.push(store);
  const { service } = await wireService({ config, secrets: readSecrets(config, {}), store, log: captureLogger().log, clock, transport, timers: false });
  return { service, store };
}

describe('server.work_lease', () => {
  it.each([
    { setting: { work_lease: '3s' }, leaseMs: 3_000, when: 'once the configured lease runs out' },
    { setting: {}, leaseMs: 15_000, when: 'after 15 s when no lease is set' },
  ])('a killed process\'s message is taken over $when', async ({ setting, leaseMs }) => {
    const clock = new FakeClock();
    const slow = new RecordingTransport(true);
    const a = await instance(setting, clock, slow);
    const other = new RecordingTransport(false);
    const b = await instance(setting, clock, other);

    await a.service.submitRequest(submitBody() as never);
    await slow.sending();
    await a.store.close();

    clock.advance(leaseMs - 1);
    b.service.messages.kick();
    await b.service.messages.idle();
    expect(other.sent).toHaveLength(0);

    clock.advance(1);
    b.service.messages.kick();
    await b.service.messages.idle();
    expect(other.sent.map((m) => m.expertId)).toEqual(['dana']);
  });

  it.each(['1s', '30s', 'soon'])('refuses %s, naming the key', (value) => {
    expect(() => parseConfig(testConfigYaml({ server: { work_lease: value } }), file())).toThrow(ConfigError);
    expect(() => parseConfig(testConfigYaml({ server: { work_lease: value } }), file())).toThrow(/server\.work_lease/);
  });
});
