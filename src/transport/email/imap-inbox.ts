import { ImapFlow } from 'imapflow';
import type { Logger } from 'pino';
import { processInbox } from './imap-pass.js';
import { parseImapUrl, type ImapEndpoint } from './imap-url.js';

export interface ImapInboxOptions {
  /** `imap://user:password@host:port` or `imaps://…` of the mailbox replies arrive in. */
  url: string;
  log: Logger;
  /** How often to look for new mail when the server has no IDLE, and to retry a message whose handler threw. */
  pollMs: number;
  /** Called once per new message with its raw MIME; the message is moved away only after this resolves. */
  onMessage: (raw: Buffer) => Promise<void>;
  /** Where processed messages go (created when missing). Default `expertq-processed`. */
  processedFolder?: string;
}

/** Reconnect delays after consecutive failures: 1 s, 2 s, 4 s … up to a minute. */
const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 60_000;
const IDLE_RESTART_MS = 4 * 60_000;

type Phase = 'stopped' | 'connecting' | 'ready' | 'retrying';

/**
 * Reads replies from an IMAP mailbox: every message in INBOX not yet `\Seen` goes to `onMessage`,
 * oldest first, and is then flagged `\Seen` and moved to the processed folder. Between passes it waits
 * for the server to announce new mail (IDLE) or, on a server without IDLE, polls every `pollMs`. One
 * pass runs at a time on one connection; a dropped connection is logged and reopened with backoff,
 * never thrown at the process. Delivery is at least once (a crash between handling and moving hands
 * the message over again), so the handler dedupes, by `Message-ID`.
 */
export class ImapInbox {
  private readonly endpoint: ImapEndpoint;
  private readonly folder: string;
  private phase: Phase = 'stopped';
  private stopping = false;
  private loop: Promise<void> | null = null;
  private client: ImapFlow | null = null;
  private lastError: string | null = null;
  /** Set when something happened that a waiting loop should look at (new mail, a closed connection, stop). */
  private signalled = false;
  private wake: (() => void) | null = null;

  constructor(private readonly options: ImapInboxOptions) {
    this.endpoint = parseImapUrl(options.url);
    this.folder = options.processedFolder ?? 'expertq-processed';
  }

  /**
   * Starts reading. Resolves once the mailbox is open (the first pass then runs in the background),
   * or once the first attempt failed: it is retried, and `notReady()` says why meanwhile.
   */
  async start(): Promise<void> {
    if (this.loop) return;
    this.stopping = false;
    let attempted!: () => void;
    const firstAttempt = new Promise<void>((resolve) => (attempted = resolve));
    this.loop = this.run(attempted);
    await firstAttempt;
  }

  /** Stops after the message in hand (if any) is handled and moved, and logs out. */
  async stop(): Promise<void> {
    if (!this.loop) return;
    this.stopping = true;
    // A connect in progress would otherwise run to its timeout.
    if (this.phase === 'connecting') this.client?.close();
    this.signal();
    await this.loop;
    this.loop = null;
  }

  /** Why the inbox is not reading mail right now, or null when it is (for health checks). */
  notReady(): string | null {
    const where = `${this.endpoint.host}:${this.endpoint.port}`;
    switch (this.phase) {
      case 'ready':
        return null;
      case 'stopped':
        return 'the IMAP inbox is not started';
      case 'connecting':
        return this.lastError ? `cannot read the IMAP inbox at ${where}: ${this.lastError}` : `connecting to the IMAP inbox at ${where}`;
      case 'retrying':
        return `cannot read the IMAP inbox at ${where}: ${this.lastError ?? 'connection lost'}`;
    }
  }

  /** Connect, serve until the connection ends, back off, again; until stopped. */
  private async run(attempted: () => void): Promise<void> {
    const { log } = this.options;
    const where = { host: this.endpoint.host, port: this.endpoint.port, user: this.endpoint.user };
    let failures = 0;
    while (!this.stopping) {
      const client = this.newClient();
      this.client = client;
      try {
        this.phase = 'connecting';
        await client.connect();
        const created = await client.mailboxCreate(this.folder);
        if (created.created) log.info({ ...where, folder: this.folder }, 'email: created the IMAP folder for processed messages');
        await client.mailboxOpen('INBOX');
        this.phase = 'ready';
        this.lastError = null;
        log.info({ ...where, idle: client.capabilities.has('IDLE') }, 'email: reading the IMAP inbox');
        attempted();
        await this.serve(client, () => (failures = 0));
      } catch (error) {
        if (!this.stopping) {
          this.lastError = error instanceof Error ? error.message : String(error);
          log.warn({ ...where, err: error }, 'email: the IMAP connection failed');
        }
      } finally {
        this.client = null;
        await this.close(client);
      }
      attempted();
      if (this.stopping) break;
      // The first retry after a working connection is immediate (a server restart, a dropped
      // session); consecutive failures wait longer each time.
      const delay = failures === 0 ? 0 : Math.min(FIRST_RETRY_MS * 2 ** (failures - 1), MAX_RETRY_MS);
      failures += 1;
      this.phase = 'retrying';
      log.info({ ...where, delay_ms: delay }, 'email: reconnecting to the IMAP inbox');
      this.signalled = false;
      await this.waitForSignal(delay);
    }
    this.phase = 'stopped';
  }

  /** Passes over the inbox on one open connection, waiting for new mail between them; returns when it closes or on stop. */
  private async serve(client: ImapFlow, healthy: () => void): Promise<void> {
    client.on('exists', () => this.signal());
    client.on('close', () => this.signal());
    const idle = client.capabilities.has('IDLE');
    while (!this.stopping) {
      this.signalled = false;
      const pass = await processInbox(client, this.folder, this.options.onMessage, this.options.log, () => this.stopping);
      healthy();
      if (this.stopping) return;
      if (!client.usable) throw new Error('the IMAP server closed the connection');
      // With IDLE the server says when mail arrives; a pass is still repeated after pollMs while a
      // message failed, so it is retried without waiting for the next new message.
      if (idle) {
        // Ends by itself when the next command (the next pass, or LOGOUT) is sent.
        client.idle().catch((error: unknown) => this.options.log.debug({ err: error }, 'email: IMAP IDLE ended with an error'));
      }
      await this.waitForSignal(idle && pass.failed === 0 ? null : this.options.pollMs);
      if (!client.usable && !this.stopping) throw new Error('the IMAP server closed the connection');
    }
  }

  private newClient(): ImapFlow {
    const { host, port, secure, user, pass } = this.endpoint;
    // IDLE is restarted every few minutes, under imapflow's 5-minute socket timeout and the
    // 30 minutes after which servers (and long before, some NAT gateways) drop a quiet session.
    const client = new ImapFlow({ host, port, secure, auth: { user, pass }, logger: false, disableAutoIdle: true, maxIdleTime: IDLE_RESTART_MS });
    // Without a listener an 'error' event would crash the process; the loop logs and reconnects.
    client.on('error', (error: Error) => this.options.log.debug({ err: error }, 'email: IMAP connection error'));
    return client;
  }

  private async close(client: ImapFlow): Promise<void> {
    if (client.usable) {
      try {
        await client.logout();
        return;
      } catch {
        // Already gone: close below.
      }
    }
    client.close();
  }

  private signal(): void {
    this.signalled = true;
    this.wake?.();
  }

  /** Resolves on the next signal (or one already given), on stop, or after `ms` (null: no time limit). */
  private waitForSignal(ms: number | null): Promise<void> {
    if (this.signalled || this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = ms === null ? null : setTimeout(() => done(), ms);
      const done = () => {
        if (timer) clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      this.wake = done;
    });
  }
}
