import type { ChannelName } from '../domain/channels.js';
import { TransportError, type Inbound, type OutboundMessage, type Presence, type SentMessage, type Transport } from './transport.js';

/**
 * Every channel the service runs, as one transport: each message goes out on the channel recorded
 * with it (an ask's channel is chosen when it is queued, from the expert's preference), and each
 * channel hands its experts' replies and reviewers' decisions to the same inbound handlers.
 */
export class ChannelSet implements Transport {
  readonly name: Transport['name'];
  readonly threaded: boolean;
  private readonly channels: ReadonlyMap<ChannelName, Transport>;

  constructor(channels: readonly Transport[]) {
    if (channels.length === 0) throw new Error('a channel set needs at least one channel');
    this.channels = new Map(channels.map((c) => [c.channel ?? 'console', c]));
    this.name = channels.length === 1 ? channels[0]!.name : 'channels';
    this.threaded = channels.some((c) => c.threaded);
  }

  /** The channels running, in the order they were given. */
  get running(): ChannelName[] {
    return [...this.channels.keys()];
  }

  async send(message: OutboundMessage): Promise<SentMessage | void> {
    if (message.channel === null) return this.sendOnAny(message);
    const transport = this.channels.get(message.channel);
    // Only when instances run different channels (a configuration being rolled out): not retried here.
    if (!transport) throw new TransportError(`the ${message.channel} channel does not run in this process`, 'channel_not_running', true);
    return transport.send(message);
  }

  /** A message for no channel in particular (a notice): the first channel that has an address for the expert. */
  private async sendOnAny(message: OutboundMessage): Promise<SentMessage | void> {
    let last: unknown = null;
    for (const [channel, transport] of this.channels) {
      if (!carries(transport, message)) continue;
      try {
        return await transport.send({ ...message, channel });
      } catch (error) {
        if (!(error instanceof TransportError && error.code === 'no_address')) throw error;
        last = error;
      }
    }
    throw last ?? new TransportError('no running channel carries this message', 'no_channel', true);
  }

  carries(message: OutboundMessage): boolean {
    if (message.channel === null) return [...this.channels.values()].some((c) => carries(c, message));
    const transport = this.channels.get(message.channel);
    return transport ? carries(transport, message) : true;
  }

  /** An expert's status, from the channel that can tell (Slack). */
  get presence(): ((expertId: string) => Promise<Presence>) | undefined {
    const teller = [...this.channels.values()].find((c) => c.presence);
    return teller?.presence ? (id) => teller.presence!(id) : undefined;
  }

  notReady(): string | null {
    const reasons = [...this.channels.values()].flatMap((c) => c.notReady?.() ?? []);
    return reasons.length > 0 ? reasons.join('; ') : null;
  }

  async start(inbound: Inbound): Promise<void> {
    const started: Transport[] = [];
    try {
      for (const channel of this.channels.values()) {
        await channel.start(inbound);
        started.push(channel);
      }
    } catch (error) {
      await Promise.allSettled(started.map((c) => c.stop()));
      throw error;
    }
  }

  stopSending(): void {
    for (const channel of this.channels.values()) channel.stopSending?.();
  }

  async stop(): Promise<void> {
    await Promise.allSettled([...this.channels.values()].map((c) => c.stop()));
  }
}

function carries(transport: Transport, message: OutboundMessage): boolean {
  return transport.carries ? transport.carries(message) : true;
}

/**
 * The channels a transport runs: a set's channels, or the one a transport is. One that is no channel of
 * ours (the console, an embedder's own) counts as the console: it reaches every expert by id.
 */
export function runningChannels(transport: Transport): ChannelName[] {
  return transport instanceof ChannelSet ? transport.running : [transport.channel ?? 'console'];
}
