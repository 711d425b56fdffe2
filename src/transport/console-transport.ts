import type { Writable } from 'node:stream';
import type { Logger } from 'pino';
import type { Inbound, OutboundMessage, Transport } from './transport.js';

/**
 * Prints each message as a pino line plus a readable block, for running expertq with no chat platform.
 * The block ends with the command that answers it, ready to paste.
 * Experts answer through `POST /api/v1/replies` or `expertq reply`, so `start` has nothing to listen to.
 */
export class ConsoleTransport implements Transport {
  readonly name = 'console' as const;
  readonly channel = 'console' as const;
  readonly threaded = false;

  constructor(
    private readonly log: Logger,
    private readonly out: Writable = process.stdout,
    private readonly expertName: (id: string) => string = (id) => id,
    /** The command line to print for `args` (the CLI's hints must work when pasted: see howToRun). */
    private readonly cli: (args: string) => string = (args) => `expertq ${args}`,
  ) {}

  async send(message: OutboundMessage): Promise<void> {
    this.log.info(
      { message_id: message.id, expert_id: message.expertId, request_id: message.requestId, purpose: message.purpose },
      'message to expert',
    );
    const heading = `── message to ${this.expertName(message.expertId)} (${message.expertId})`;
    const footer =
      message.purpose === 'ask' && message.requestId
        ? `\n   reply with: ${this.cli(`reply ${message.expertId} "<answer>" --request ${message.requestId}`)}`
        : '';
    this.out.write(`\n${heading} ${'─'.repeat(Math.max(3, 72 - heading.length))}\n${indent(message.text)}${footer}\n\n`);
  }

  async start(_inbound: Inbound): Promise<void> {}

  async stop(): Promise<void> {}
}

const indent = (text: string) => text.split('\n').map((line) => `   ${line}`).join('\n');
