// The scheduler's idle tick on a history: the real service and scheduler opened in this process on the
// history database (the server stopped), the clock where the history ended. As bench/scheduler.js: a
// first tick does whatever fell due meanwhile, then each timed tick is a second later with nothing due.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { loadConfig } from '../../dist/config/load-config.js';
import { composeService } from '../../dist/compose-service.js';
import { openStore } from '../../dist/store/open-store.js';
import { percentiles, writeHistoryConfig } from './setup.js';

export const IDLE_TICKS = 20;
/** The main bench's target for an idle tick (median). */
export const MAX_IDLE_TICK_MS = 20;

const silentTransport = { name: 'console', threaded: false, send: async () => {}, start: async () => {}, stop: async () => {} };

/**
 * Times IDLE_TICKS idle ticks on `storage` (open-store's options). Resolves with their median and max,
 * and how much work they did (0 when nothing fell due in those seconds).
 */
export async function measureIdleTick({ storage, facts }) {
  const dir = mkdtempSync(join(tmpdir(), 'expertq-history-tick-'));
  const store = await openStore(storage);
  try {
    const config = loadConfig(writeHistoryConfig(dir, 'path' in storage ? { path: storage.path } : { url_env: 'UNUSED' }));
    const clock = { ms: facts.endsAt, now() { return this.ms; } };
    const service = composeService({ config, store, transport: silentTransport, log: pino({ level: 'silent' }), clock });
    await service.tick();
    await service.idle();
    const times = [];
    let work = 0;
    for (let i = 0; i < IDLE_TICKS; i++) {
      clock.ms += 1_000;
      const started = performance.now();
      const result = await service.tick();
      times.push(performance.now() - started);
      await service.idle();
      work += result.timed_out + result.escalated + result.sent + result.placed;
    }
    return { p50: percentiles(times).p50, max: Math.max(...times), work };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
