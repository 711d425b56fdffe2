/** A direct message to one expert. */
export interface OutboundMessage {
  id: string;
  expertId: string;
  requestId: string | null;
  purpose: 'ask' | 'accepted';
  text: string;
}

/** A message from an expert, as a transport hands it to expertq. */
export interface InboundReply {
  expertId: string;
  text: string;
  requestId?: string;
}

/**
 * How expertq talks to experts (Bolt's Receiver shape: start/stop around a long-lived connection).
 * `send` resolves once the platform accepted the message and rejects to have it retried.
 */
export interface Transport {
  readonly name: 'console' | 'chat';
  send(message: OutboundMessage): Promise<void>;
  start(onReply: (reply: InboundReply) => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}
