import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import type { Presence } from '../../transport/transport.js';

/** How long what the chat platform said of an expert's status is trusted before it is asked again. */
export const PRESENCE_TTL_MS = 5 * 60_000;

const NOTHING: Presence = Object.freeze({ dndUntil: null, awayUntil: null });

/**
 * Experts' chat status (do-not-disturb, an away status), looked up at most once per expert per
 * `PRESENCE_TTL_MS` and never on the caller's path: a send that finds no fresh entry starts a lookup in
 * the background and waits; when the lookup ends, `onLearned` gives that expert's waiting work its
 * chance. A failed lookup counts as "nothing blocks" (logged), so a Slack outage never holds a send.
 */
export class PresenceCache {
  private readonly entries = new Map<string, { presence: Presence; at: number }>();
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(
    private readonly lookUp: (expertId: string) => Promise<Presence>,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly onLearned: (expertId: string) => Promise<void>,
    private readonly ttlMs = PRESENCE_TTL_MS,
  ) {}

  /** What is known of the expert's status and still fresh, else undefined; never looks anything up. */
  known(expertId: string): Presence | undefined {
    const entry = this.entries.get(expertId);
    return entry && this.clock.now() - entry.at < this.ttlMs ? entry.presence : undefined;
  }

  /**
   * Until when the expert's last read status said they are away, however long ago it was read (null:
   * it said nothing of the kind). An away status comes with its expiration, and like an away spell it
   * is taken at its word until then: routing passes the expert over without asking Slack again.
   */
  awayUntil(expertId: string): number | null {
    return this.entries.get(expertId)?.presence.awayUntil ?? null;
  }

  /** Like `known`, but a missing or stale entry starts a lookup in the background. */
  fresh(expertId: string): Presence | undefined {
    const presence = this.known(expertId);
    if (presence === undefined && !this.inFlight.has(expertId)) {
      const run = this.learn(expertId).finally(() => this.inFlight.delete(expertId));
      this.inFlight.set(expertId, run);
    }
    return presence;
  }

  /** Resolves once no lookup (nor the wake-up after it) is in flight (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight.values());
  }

  private async learn(expertId: string): Promise<void> {
    let presence = NOTHING;
    try {
      presence = await this.lookUp(expertId);
    } catch (error) {
      this.log.warn({ err: error, expert_id: expertId }, 'could not read the expert\'s chat status; asking them as if none were set');
    }
    this.entries.set(expertId, { presence, at: this.clock.now() });
    try {
      await this.onLearned(expertId);
    } catch (error) {
      // The ask's own retry (send_after) tries again.
      this.log.error({ err: error, expert_id: expertId }, 'could not place work after reading the expert\'s chat status');
    }
  }
}
