import type { ChatRef, MessagePurpose } from '../store/records.js';

/** A direct message to one expert. */
export interface OutboundMessage {
  id: string;
  expertId: string;
  requestId: string | null;
  askId: string | null;
  purpose: MessagePurpose;
  text: string;
  /** `ask`: its six elements. `ask_update`: the six elements of the ask being updated (`text` is the status). */
  elements: string[] | null;
  /** Where the ask this message belongs to was posted (threaded transports), once it was. */
  thread: ChatRef | null;
}

/** What a transport reports back for a message it posted. */
export interface SentMessage {
  /** Where an `ask` landed, so replies in its thread and later updates find it. */
  chat?: ChatRef;
}

/**
 * A send that failed. `permanent` failures are not retried (for an ask: the expert cannot be reached,
 * and the ask is passed on like a `skip`); others are retried by the outbox, not before `retryAfterMs`.
 */
export class TransportError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly permanent: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

/** A message from an expert, as a transport hands it to expertq. */
export interface InboundReply {
  expertId: string;
  text: string;
  requestId?: string;
  /** The ask a button, a modal or a thread reply belongs to. */
  askId?: string;
  /** The thread the message was posted in, when not top level. */
  thread?: ChatRef;
  /** The platform's id for this event: a repeated id is processed once (retries, redeliveries). */
  eventId?: string;
}

/** What became of an inbound reply (the transport may show it; `duplicate`: already processed). */
export interface InboundOutcome {
  outcome: string;
  request_id?: string | null;
}

/**
 * How expertq talks to experts (Bolt's Receiver shape: start/stop around a long-lived connection).
 * `send` resolves once the platform accepted the message and rejects to have it retried.
 * `onReply` commits the reply before it resolves, so a transport acknowledges its platform only after.
 */
export interface Transport {
  readonly name: 'console' | 'chat';
  /** Has threads and can edit its messages (see `Engine.threadedTransport`). */
  readonly threaded: boolean;
  send(message: OutboundMessage): Promise<SentMessage | void>;
  start(onReply: (reply: InboundReply) => Promise<InboundOutcome>): Promise<void>;
  stop(): Promise<void>;
}
