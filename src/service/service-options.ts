import type { Clock } from '../clock.js';
import type { Config } from '../config/load-config.js';
import type { Logger } from 'pino';
import type { ChangeFeed } from '../store/change-feed.js';
import type { Store } from '../store/store.js';
import type { Presence } from '../transport/transport.js';
import type { LlmClient } from '../llm/create-llm-client.js';
import type { Transport } from '../transport/transport.js';
import type { ReviewSettings } from './engine/index.js';
import type { DueWorkOptions } from './operations/index.js';
import type { ChannelPlan } from '../core/check-channels.js';

/** What an `ExpertqService` is built from. */
export interface ExpertqServiceOptions {
  transport: Transport;
  /** The LLM client when `llm.model` is configured; without it, nothing LLM-related runs. */
  llm?: LlmClient | null;
  config: Pick<Config, 'org' | 'defaults' | 'topics' | 'experts'> & { library?: Config['library']; file?: string | null };
  store: Store;
  log: Logger;
  clock?: Clock;
  /** `server.allow_private_webhooks`: allow webhook URLs on loopback/private addresses. */
  allowPrivateWebhooks?: boolean;
  /** Where commits are announced to live views (default: the store's, which reaches every process on its database). */
  changes?: ChangeFeed;
  /** Names this process on the leases it holds (deliveries, chat messages, LLM jobs); one is made up by default. */
  instanceId?: string;
  /**
   * Reads an expert's chat status (`chat.use_slack_status`): asks then wait out do-not-disturb and an
   * away status. Absent: no status is consulted and no lookup is ever made.
   */
  presence?: ((expertId: string) => Promise<Presence>) | null;
  /** The channels configured and running; default: what the transport is (the console alone, or Slack). */
  channels?: ChannelPlan;
  /** The Slack review channel, its reviewers and the reminder period. */
  review?: Partial<ReviewSettings>;
  /** How much due work one tick does per transaction and in all (defaults: 1,000 and 5,000 rows). */
  dueWork?: DueWorkOptions;
}
