import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One webhook as an endpoint saw it, with what the endpoint answered. */
export interface Receipt {
  /** Which receiver got it. */
  receiver: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
  /** The status this endpoint answered. */
  status: number;
  /** Monotonic order across every receiver of the process (see `RecordingReceiver.sequence`). */
  seq: number;
}

let sequence = 0;

/**
 * A loopback webhook endpoint that records every request it got together with the status it answered.
 * `answer(index, headers)` decides the status of the index-th request (0-based) synchronously, so the record is
 * written before the response: a receipt is counted even if the sender dies before reading the answer.
 * `onReceipt` runs after each recorded request (the crash test counts receipts there to pick kill
 * moments).
 */
export class RecordingReceiver {
  readonly receipts: Receipt[] = [];
  onReceipt: ((receipt: Receipt) => void) | null = null;
  private readonly server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: Record<string, unknown>;
      try {
        json = JSON.parse(body) as Record<string, unknown>;
      } catch {
        json = {};
      }
      const status = this.answer(this.receipts.length, req.headers);
      const receipt: Receipt = { receiver: this.name, headers: req.headers, body, json, status, seq: sequence++ };
      this.receipts.push(receipt);
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status < 300 ? 'ok' : 'try later');
      this.onReceipt?.(receipt);
    });
  });

  constructor(
    readonly name: string,
    public answer: (index: number, headers: IncomingHttpHeaders) => number = () => 200,
  ) {
    this.server.keepAliveTimeout = 30_000;
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks/${this.name}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
