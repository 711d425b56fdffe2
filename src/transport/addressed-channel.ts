import type { ExpertChannel } from '../domain/channels.js';
import { TransportError, type AddressBook, type Inbound, type InboundReply, type OutboundMessage, type Transport } from './transport.js';

// A review rule's reviewer is addressed by their id on the channel (`review_notice`), not as an expert.
const REVIEW_PURPOSES = new Set(['review_card', 'review_update', 'review_reminder', 'review_mail', 'review_notice']);

/**
 * A channel that knows people by their address on it (a Slack user id, an email address), in front of
 * the service, which knows experts by their expertq id. Outbound messages to an expert carry the
 * expert's address on this channel; whatever comes in from an address is handed on as the expert at
 * it. An address nobody has is handed on as it is (the service answers that it knows no such expert).
 * Review-channel messages and reviewers' decisions are not about experts and pass through unchanged.
 */
export class AddressedChannel implements Transport {
  readonly name: Transport['name'];
  readonly channel: ExpertChannel;
  readonly threaded: boolean;

  constructor(
    private readonly inner: Transport & { readonly channel: ExpertChannel },
    private readonly book: AddressBook,
  ) {
    this.name = inner.name;
    this.channel = inner.channel;
    this.threaded = inner.threaded;
    if (inner.presence) this.presence = (expertId) => inner.presence!(this.addressOf(expertId));
    if (inner.notReady) this.notReady = () => inner.notReady!();
    if (inner.stopSending) this.stopSending = () => inner.stopSending!();
  }

  presence?: Transport['presence'];
  notReady?: Transport['notReady'];
  stopSending?: Transport['stopSending'];

  async send(message: OutboundMessage) {
    if (REVIEW_PURPOSES.has(message.purpose)) return this.inner.send(message);
    return this.inner.send({ ...message, expertId: this.addressOf(message.expertId) });
  }

  carries(message: OutboundMessage): boolean {
    return this.inner.carries ? this.inner.carries(message) : true;
  }

  start(inbound: Inbound): Promise<void> {
    const expert = (address: string) => this.book.expertAt(this.channel, address) ?? address;
    const from = (reply: InboundReply): InboundReply => ({ ...reply, expertId: expert(reply.expertId), channel: this.channel });
    return this.inner.start({
      reply: (reply) => inbound.reply(from(reply)),
      review: (action) => inbound.review(action),
      answerOf: (proposalId) => inbound.answerOf(proposalId),
      ...(inbound.reviewCard ? { reviewCard: (proposalId: string) => inbound.reviewCard!(proposalId) } : {}),
      home: (address) => inbound.home(expert(address)),
      setAway: (address, away) => inbound.setAway(expert(address), away),
      autoReply: (notice) => inbound.autoReply({ ...notice, expertId: expert(notice.expertId), channel: this.channel }),
      undeliverable: (notice) => inbound.undeliverable(notice),
      refused: (notice) => inbound.refused(notice),
    });
  }

  stop(): Promise<void> {
    return this.inner.stop();
  }

  private addressOf(expertId: string): string {
    const address = this.book.addressOf(expertId, this.channel);
    // Permanent: the ask moves to the expert's next channel, if they have one.
    if (address === null) throw new TransportError(`expert "${expertId}" has no ${this.channel} address`, 'no_address', true);
    return address;
  }
}
