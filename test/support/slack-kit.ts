import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startServer, type RunningServer } from '../../src/server.js';
import { callJson } from './json-call.js';
import { captureLogger, type Capture } from './capture.js';
import { FakeClock } from './fake-clock.js';
import { APP_TOKEN, BOT_TOKEN, FakeSlack, SIGNING_SECRET, slackSignature } from './fake-slack.js';

/** The example experts with Slack user ids. */
export const SLACK_EXPERTS = [
  { id: 'UDANA', name: 'Dana Smith', topics: ['billing', 'invoices'], escalation_to: 'ULEE' },
  { id: 'ULEE', name: 'Lee Chen', topics: ['billing', 'payments'] },
  { id: 'USAM', name: 'Sam Okafor', topics: ['deployments', 'kubernetes'] },
];

export interface SlackKitOptions {
  mode: 'socket' | 'http';
  /** Extra or replacement top-level config sections; `chat` keys are merged into the kit's own. */
  config?: Record<string, unknown>;
  env?: Record<string, string>;
  /** Reuse a directory (a restart on the same database). */
  dir?: string;
  slack?: FakeSlack;
  /** `chat` (default): Slack alone; `channels`: every channel the config sets up (Slack and email, say). */
  transport?: 'chat' | 'channels';
}

export interface SlackKit {
  slack: FakeSlack;
  server: RunningServer;
  clock: FakeClock;
  logs: Capture;
  dir: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Delivers a Slack event or interaction the way the mode does, and waits for what it caused to be sent. */
  deliver(payload: Record<string, unknown>, options?: { retryAttempt?: number; envelopeId?: string; eventType?: 'events_api' | 'interactive' }): Promise<{ status: number; body: unknown }>;
  /** Moves the fake clock, runs the scheduler, and waits for the messages it caused. */
  advance(ms: number): Promise<void>;
  /** Waits until the outboxes are drained. */
  settle(): Promise<void>;
  /** Stops the server (keeps the directory and the fake Slack, for a restart). */
  stop(): Promise<void>;
  close(): Promise<void>;
}

/** A real `expertq serve --transport chat` in this process (port 0) against a local fake Slack. */
export async function startSlackKit(options: SlackKitOptions): Promise<SlackKit> {
  const slack = options.slack ?? (await new FakeSlack().start());
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'expertq-slack-'));
  const configFile = join(dir, 'service.yaml');
  const { chat: extraChat, ...config } = (options.config ?? {}) as { chat?: Record<string, unknown> } & Record<string, unknown>;
  const chat = {
    ...extraChat,
    bot_token_env: 'SLACK_BOT_TOKEN',
    ...(options.mode === 'socket' ? { app_token_env: 'SLACK_APP_TOKEN' } : { signing_secret_env: 'SLACK_SIGNING_SECRET' }),
    api_url: slack.apiUrl,
  };
  if (!options.dir) {
    writeFileSync(configFile, stringify({ org: { name: 'Acme', timezone: 'UTC' }, chat, experts: SLACK_EXPERTS, ...config }));
  }
  const clock = new FakeClock();
  const { log, logs } = captureLogger();
  const env = { SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_APP_TOKEN: APP_TOKEN, SLACK_SIGNING_SECRET: SIGNING_SECRET, ...options.env };
  const server = await startServer({ configPath: configFile, transport: options.transport ?? 'chat', env, clock, logger: log, port: 0 });
  if (options.mode === 'socket') await slack.connected();
  const settle = () => server.service.idle();

  const kit: SlackKit = {
    slack,
    server,
    clock,
    logs,
    dir,
    call: (method, path, body) => callJson(server.url, settle, method, path, body),
    async deliver(payload, opts = {}) {
      if (options.mode === 'socket') {
        const type = opts.eventType ?? (payload.type === 'event_callback' ? 'events_api' : 'interactive');
        const ack = await slack.envelope(type, payload, { retryAttempt: opts.retryAttempt, envelopeId: opts.envelopeId });
        await settle();
        return { status: 200, body: ack };
      }
      const isEvent = payload.type === 'event_callback' || payload.type === 'url_verification';
      const body = isEvent ? JSON.stringify(payload) : new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
      const res = await fetch(`${server.url}/api/v1/chat/events`, {
        method: 'POST',
        headers: {
          'content-type': isEvent ? 'application/json' : 'application/x-www-form-urlencoded',
          ...slackSignature(body, Math.floor(clock.now() / 1000)),
          ...(opts.retryAttempt ? { 'x-slack-retry-num': String(opts.retryAttempt), 'x-slack-retry-reason': 'http_timeout' } : {}),
        },
        body,
      });
      const text = await res.text();
      await settle();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : '';
      } catch {
        // not JSON: keep the text
      }
      return { status: res.status, body: parsed };
    },
    async advance(ms) {
      clock.advance(ms);
      await server.service.tick();
      await settle();
    },
    settle,
    stop: () => server.close(),
    async close() {
      await server.close();
      if (!options.slack) await slack.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await settle();
  return kit;
}

/** The same valid submit body as the console tests use (topic billing, a reason); override any field. */
export { submitBody as slackSubmit } from './build-test-app.js';
