import type { Logger } from 'pino';
import type { Clock } from './clock.js';
import { ConfigError, type Config, type Secrets } from './config/load-config.js';
import { configureLlm } from './llm/configure-llm.js';
import { runTick } from './scheduler/run-tick.js';
import { composeService, type ComposeServiceOptions } from './compose-service.js';
import type { ExpertqService } from './service/expertq-service.js';
import type { Store } from './store/store.js';
import { slackCode } from './transport/slack/slack-code.js';
import type { Transport } from './transport/transport.js';

export interface WireServiceOptions {
  /** The configuration, already loaded. */
  config: Config;
  secrets: Secrets;
  store: Store;
  log: Logger;
  clock: Clock;
  /** A transport, or one built from the service's expert names (the console transport prints them). */
  transport: Transport | ((expertName: (id: string) => string) => Transport);
  /** Run the scheduler every `server.tick_ms`. Tests turn it off and call `service.tick()` themselves. */
  timers: boolean;
  /** Tuning for the webhook dispatcher (tests shorten the timeout). */
  delivery?: ComposeServiceOptions['delivery'];
}

export interface WiredService {
  service: ExpertqService;
  transport: Transport;
  /** The scheduler's timer; null without timers. */
  timer: NodeJS.Timeout | null;
}

/**
 * Wiring shared by `createService` and the test harness: configuration → LLM client → service with
 * its scheduler → transport started → work left over from before a stop kicked → scheduler timer.
 * The store is opened (and locked) by the caller, who closes it if this throws (a transport that
 * cannot start throws a ConfigError naming it).
 */
export async function wireService(options: WireServiceOptions): Promise<WiredService> {
  const { config, log, clock } = options;
  const llm = configureLlm(config, options.secrets, log);
  const transport = typeof options.transport === 'function' ? options.transport((id) => service.experts.get(id)?.name ?? id) : options.transport;
  const service: ExpertqService = composeService({
    config,
    store: options.store,
    transport,
    log,
    clock,
    review: { channel: config.chat?.review_channel ?? null, reviewers: config.chat?.reviewers ?? [], remindAfterMs: config.review.remind_after },
    allowPrivateWebhooks: config.server.allow_private_webhooks,
    ...(options.delivery ? { delivery: options.delivery } : {}),
    llm,
    // Only with the setting on and a transport that can say: otherwise no status lookup is ever made.
    presence: config.chat?.use_slack_status && transport.presence ? (id) => transport.presence!(id) : null,
  });
  try {
    await transport.start({
      reply: (reply) => service.receiveInbound(reply),
      review: (action) => service.reviewFromChat(action),
      answerOf: async (id) => (await service.store.proposals.get(id))?.answer ?? null,
      home: (id) => service.expertHome(id),
      setAway: (id, away) => service.awayFromChat(id, away),
    });
  } catch (error) {
    throw new ConfigError(`The ${transport.name} transport could not start: ${slackCode(error)}${config.chat?.app_token_env ? ` (check ${config.chat.app_token_env})` : ''}.`);
  }

  // Anything committed but not delivered (or drafted, or structured) before a stop goes on now; due work every tick.
  service.kick();
  let timer: NodeJS.Timeout | null = null;
  if (options.timers) {
    // The scheduler: catch up now on whatever fell due while stopped, then every tick (it also kicks
    // both dispatchers, so due retries go out).
    // One tick at a time: a tick still running when the next is due lets that one pass.
    let ticking: Promise<void> | null = null;
    const tick = () => {
      ticking ??= runTick(service, log).finally(() => (ticking = null));
    };
    tick();
    timer = setInterval(tick, config.server.tick_ms);
    timer.unref();
  }
  return { service, transport, timer };
}
