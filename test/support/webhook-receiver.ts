import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
}

/** What the receiver answers; a function may hold the response (slow endpoint) by returning a promise. */
export type Answer = number | { status: number; headers?: Record<string, string> };

/**
 * A real HTTP endpoint on loopback that records every webhook it gets. Its answers are scripted per
 * call, so tests can make it fail, recover, redirect or hang.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  /** Requests that arrived, answered or not (a held response counts here first). */
  arrived = 0;
  private waiters: Array<{ count: number; resolve: () => void }> = [];
  private arrivedWaiters: Array<{ count: number; resolve: () => void }> = [];
  private server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const entry = { headers: req.headers, body, json: JSON.parse(body) };
      this.arrived++;
      this.arrivedWaiters = this.arrivedWaiters.filter((w) => (this.arrived >= w.count ? (w.resolve(), false) : true));
      void Promise.resolve(this.answer(entry, this.received.length)).then((answer) => {
        this.received.push(entry);
        reply(res, answer);
        this.waiters = this.waiters.filter((w) => (this.received.length >= w.count ? (w.resolve(), false) : true));
      });
    });
  });

  constructor(public answer: (r: Received, index: number) => Answer | Promise<Answer> = () => 200) {}

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  /** Resolves once `count` webhooks have been received (no sleeping). */
  waitFor(count: number): Promise<void> {
    if (this.received.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  /** Resolves once `count` requests have arrived, before they are answered. */
  waitForArrivals(count: number): Promise<void> {
    if (this.arrived >= count) return Promise.resolve();
    return new Promise((resolve) => this.arrivedWaiters.push({ count, resolve }));
  }

  events(): string[] {
    return this.received.map((r) => r.json.event as string);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

function reply(res: ServerResponse, answer: Answer): void {
  const { status, headers } = typeof answer === 'number' ? { status: answer, headers: {} } : answer;
  res.writeHead(status, headers);
  res.end();
}
