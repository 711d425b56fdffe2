import { addressOn, type ExpertChannel } from '../../src/domain/channels.js';
import type { ExpertqService } from '../../src/service/expertq-service.js';
import { AddressedChannel } from '../../src/transport/addressed-channel.js';
import { ChannelSet } from '../../src/transport/channel-set.js';
import { NOT_INSTALLED } from '../../src/transport/teams/teams-errors.js';
import { TransportError, type AddressBook, type Inbound, type OutboundMessage, type Transport } from '../../src/transport/transport.js';
import type { CheckingTransport } from './checking-transport.js';
import { idAt, SLACK_INACTIVE, TEAMS_NOT_INSTALLED } from './sim-experts.js';

/** Who a channel refuses for good, and the error it gives, as the real channel does. */
interface Refusal {
  who: ReadonlySet<string>;
  error: (id: string) => TransportError;
}

/** Slack refuses a deactivated account; Teams refuses a person with no stored personal conversation (the app never installed). */
const REFUSALS: Partial<Record<ExpertChannel, Refusal>> = {
  slack: { who: SLACK_INACTIVE, error: (id) => new TransportError(`${id}'s account is inactive`, 'account_inactive', true) },
  teams: { who: TEAMS_NOT_INSTALLED, error: () => new TransportError(NOT_INSTALLED, 'not_installed', true) },
};

/**
 * One channel of the simulated organisation (Slack, Teams or email), faked at the transport boundary
 * as the rest of the simulation is: hands every ask to the checker under the expert's id (the channel
 * gets their address), and refuses for good the experts its refusal names, whose asks must move to
 * their next channel. `checkMoved` runs before each ask it carries.
 */
export class SimChannel implements Transport {
  readonly name: 'chat' | 'teams' | 'email';
  readonly threaded = false;
  /** Asks this channel carried, and those it refused for good. */
  sent = 0;
  refused = 0;

  constructor(
    readonly channel: ExpertChannel,
    private readonly checker: CheckingTransport,
    private readonly checkMoved: (m: OutboundMessage, id: string) => Promise<void> = async () => {},
  ) {
    this.name = channel === 'slack' ? 'chat' : channel;
  }

  async send(m: OutboundMessage): Promise<void> {
    if (m.purpose !== 'ask') return;
    const id = idAt(m.expertId);
    const refusal = REFUSALS[this.channel];
    if (refusal?.who.has(id)) {
      this.refused++;
      throw refusal.error(id);
    }
    await this.checkMoved(m, id);
    this.sent++;
    await this.checker.send({ ...m, expertId: id });
  }

  async start(_inbound: Inbound): Promise<void> {}
  async stop(): Promise<void> {}
}

/**
 * The simulated organisation's three channels, one set: each expert is asked on their first channel
 * (sim-experts.ts says which), an ask refused there for good moves on, and every ask reaches the one
 * checker. Each ask email carries for an expert Slack or Teams refuses is checked to have moved: its
 * request's audit holds `channel_failed` with that channel and its error, then `asked` by email.
 */
export function simChannels(checker: CheckingTransport, service: () => ExpertqService, violations: string[]) {
  const book: AddressBook = {
    addressOf: (id, channel) => {
      const expert = service().experts.get(id);
      return expert ? addressOn(expert, channel) : null;
    },
    expertAt: (channel, address) => service().experts.at(channel, address)?.id ?? null,
  };
  const moves = { checked: 0 };
  const checkMoved = async (m: OutboundMessage, id: string) => {
    const from = (['slack', 'teams'] as const).find((c) => REFUSALS[c]!.who.has(id));
    if (!from) return;
    moves.checked++;
    const code = REFUSALS[from]!.error(id).code;
    const rows = (await service().store.requests.audit(m.requestId!)).filter((r) => r.data.ask_id === m.askId);
    const failed = rows.findIndex((r) => r.type === 'channel_failed' && r.data.channel === from && r.data.error === code);
    const asked = rows.findIndex((r, i) => i > failed && r.type === 'asked' && r.data.channel === 'email');
    if (failed < 0 || asked < 0) violations.push(`ask ${m.askId} to ${id} went by email without channel_failed {${from}, ${code}} then asked {email}: ${JSON.stringify(rows.map((r) => [r.type, r.data.channel ?? null]))}`);
  };
  const slack = new SimChannel('slack', checker);
  const teams = new SimChannel('teams', checker);
  const email = new SimChannel('email', checker, checkMoved);
  const transport = new ChannelSet([slack, teams, email].map((c) => new AddressedChannel(c, book)));
  return { transport, slack, teams, email, moves };
}
