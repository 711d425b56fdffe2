import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { iso } from '../../clock.js';
import { packageVersion } from '../../package-info.js';
import type { Engine } from '../engine/index.js';

/** How often an instance refreshes its row; after three missed refreshes it counts as gone. */
export const HEARTBEAT_MS = 10_000;
const GONE_AFTER_MS = 3 * HEARTBEAT_MS;
/** Rows of instances gone this long are removed (a killed process never removes its own). */
const FORGET_AFTER_MS = 24 * 3_600_000;

/** What reading the instances table reads: the store, the clock and which row is this instance's. */
type InstanceReads = Pick<Engine, 'store' | 'clock'> & { instanceId: string };

/** A short hash of the expert registry: instances reading different config files differ here. */
export function registryHash(engine: Pick<Engine, 'experts'>): string {
  return createHash('sha256').update(JSON.stringify(engine.experts.toEntries())).digest('hex').slice(0, 12);
}

/**
 * Keeps this instance's row in the instances table: written at start, refreshed every
 * `HEARTBEAT_MS` (with the registry it runs now), removed at a clean stop. A refresh that fails is
 * tried again at the next one; it never stops the server.
 */
export class InstanceHeartbeat {
  private timer: NodeJS.Timeout | null = null;
  private readonly startedAt: number;
  private warned = '';

  constructor(private readonly engine: InstanceReads & Pick<Engine, 'log' | 'experts' | 'llmBacklog'>) {
    this.startedAt = engine.clock.now();
  }

  async start(): Promise<void> {
    await this.beat();
    this.timer = setInterval(() => void this.beat().catch((err: unknown) => this.engine.log.warn({ err }, 'could not refresh this instance in the instances list')), HEARTBEAT_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.engine.store.transaction((tx) => tx.instances.remove(this.engine.instanceId));
  }

  private async beat(): Promise<void> {
    const now = this.engine.clock.now();
    await this.engine.store.transaction(async (tx) => {
      await tx.instances.upsert({
        id: this.engine.instanceId,
        host: hostname(),
        pid: process.pid,
        version: packageVersion(),
        started_at: this.startedAt,
        last_seen: now,
        registry_hash: registryHash(this.engine),
      });
      await tx.instances.removeUnseenSince(now - FORGET_AFTER_MS);
    });
    // Said once each time the mismatch changes, not at every refresh.
    const { warnings, live } = await instancesNow(this.engine);
    this.engine.store.noteInstances(live);
    this.engine.llmBacklog?.liveInstances(live.length);
    const said = warnings.join(' ');
    if (said !== this.warned && said !== '') this.engine.log.warn({ warnings }, 'instances sharing this database disagree');
    this.warned = said;
  }
}

/**
 * `GET /instances`: every instance that registered, whether it is live (refreshed within 30 s), and
 * warnings when the live ones run different versions or expert registries.
 */
export async function listInstances(engine: InstanceReads) {
  const { items, warnings } = await instancesNow(engine);
  return { items, warnings };
}

/** `listInstances`, and the live instances' rows as stored. */
async function instancesNow(engine: InstanceReads) {
  const now = engine.clock.now();
  const rows = await engine.store.instances.list();
  const items = rows.map((r) => ({
    id: r.id,
    host: r.host,
    pid: r.pid,
    version: r.version,
    started_at: iso(r.started_at),
    last_seen: iso(r.last_seen),
    registry_hash: r.registry_hash,
    live: now - r.last_seen <= GONE_AFTER_MS,
    this_instance: r.id === engine.instanceId,
  }));
  const live = items.filter((i) => i.live);
  const warnings: string[] = [];
  const versions = new Set(live.map((i) => i.version));
  if (versions.size > 1) warnings.push(`Instances run different versions (${[...versions].sort().join(', ')}): finish the rolling upgrade.`);
  const registries = new Set(live.map((i) => i.registry_hash));
  if (registries.size > 1) warnings.push('Instances run different expert registries: their config files differ (check every instance reads the same file).');
  return { items, warnings, live: rows.filter((r) => now - r.last_seen <= GONE_AFTER_MS) };
}
