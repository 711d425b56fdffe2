import type { Clock } from '../clock.js';
import type { Config } from '../config/load-config.js';
import type { Logger } from 'pino';
import type { ChangeFeed } from '../store/change-feed.js';
import type { Store } from '../store/store.js';
import type { Presence } from '../transport/transport.js';
import type { Engine, ReviewSettings } from './engine/index.js';
import type { TimedWork, WorkerOptions } from './operations/index.js';

/** What an `ExpertqService` is built from. */
export interface ExpertqServiceOptions extends WorkerOptions {
  config: Pick<Config, 'org' | 'defaults' | 'topics' | 'experts'> & { library?: Config['library']; file?: string | null };
  store: Store;
  log: Logger;
  clock?: Clock;
  /** `server.allow_private_webhooks`: allow webhook URLs on loopback/private addresses. */
  allowPrivateWebhooks?: boolean;
  /**
   * Builds what `tick()` runs (the scheduler) for this service. The composition root passes it, so
   * the service does not depend on the scheduler that calls it.
   */
  scheduler: (engine: Engine) => TimedWork;
  /** Where commits are announced to live views (default: the store's, which reaches every process on its database). */
  changes?: ChangeFeed;
  /** Names this process on the leases it holds (deliveries, chat messages, LLM jobs); one is made up by default. */
  instanceId?: string;
  /**
   * Reads an expert's chat status (`chat.use_slack_status`): asks then wait out do-not-disturb and an
   * away status. Absent: no status is consulted and no lookup is ever made.
   */
  presence?: ((expertId: string) => Promise<Presence>) | null;
  /** The Slack review channel, its reviewers and the reminder period. */
  review?: Partial<ReviewSettings>;
}
