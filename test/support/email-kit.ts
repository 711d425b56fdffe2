import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import { stringify } from 'yaml';
import { startServer, type RunningServer } from '../../src/server.js';
import { callJson } from './json-call.js';
import { captureLogger, type Capture } from './capture.js';
import { FakeClock } from './fake-clock.js';
import { startSmtpServer, type TestSmtpServer } from './smtp-server.js';

export const INBOUND_TOKEN = 'inbound-token-for-tests';
export const FROM = 'Acme expertq <expertq@acme.example>';

/** Experts on email: Dana prefers email, Lee has only an address. */
export const EMAIL_EXPERTS = [
  { id: 'dana', name: 'Dana Smith', topics: ['billing', 'invoices'], email: 'Dana@Acme.example', escalation_to: 'lee', channels: ['email'] },
  { id: 'lee', name: 'Lee Chen', topics: ['billing', 'payments'], email: 'lee@acme.example' },
];

export interface EmailKit {
  server: RunningServer;
  smtp: TestSmtpServer;
  clock: FakeClock;
  logs: Capture;
  dir: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Posts a raw message to the inbound route, as a provider's inbound webhook does. */
  inbound(raw: Buffer | string, token?: string): Promise<{ status: number; body: unknown }>;
  /** Every mail sent so far, parsed as a mail client reads it. */
  mails(): Promise<ParsedMail[]>;
  settle(): Promise<void>;
  close(): Promise<void>;
}

/** A real `expertq serve` with the email channel (and whatever else `config` sets up) against a local SMTP server. */
export async function startEmailKit(options: { config?: Record<string, unknown>; env?: Record<string, string>; experts?: unknown[] } = {}): Promise<EmailKit> {
  const smtp = await startSmtpServer();
  const dir = mkdtempSync(join(tmpdir(), 'expertq-email-'));
  const configFile = join(dir, 'service.yaml');
  const email = { smtp_url_env: 'SMTP_URL', from: FROM, inbound_token_env: 'INBOUND_TOKEN', ...((options.config?.email as object) ?? {}) };
  writeFileSync(configFile, stringify({ org: { name: 'Acme', timezone: 'UTC' }, experts: options.experts ?? EMAIL_EXPERTS, ...options.config, email, server: { public_url: 'https://expertq.acme.example', allow_private_webhooks: true } }));
  const clock = new FakeClock();
  const { log, logs } = captureLogger();
  const env = { SMTP_URL: smtp.url, INBOUND_TOKEN, ...options.env };
  const server = await startServer({ configPath: configFile, transport: 'auto', env, clock, logger: log, port: 0 });
  const settle = () => server.service.idle();
  return {
    server,
    smtp,
    clock,
    logs,
    dir,
    call: (method, path, body) => callJson(server.url, settle, method, path, body),
    async inbound(raw, token = INBOUND_TOKEN) {
      const res = await fetch(`${server.url}/api/v1/email/inbound`, { method: 'POST', headers: { 'content-type': 'message/rfc822', authorization: `Bearer ${token}` }, body: raw });
      const text = await res.text();
      await settle();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    },
    mails: () => Promise.all(smtp.messages.map((m) => simpleParser(m.raw))),
    settle,
    async close() {
      await server.close();
      await smtp.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
