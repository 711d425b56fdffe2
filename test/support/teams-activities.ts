import { randomUUID } from 'node:crypto';

/** A Teams user as activities name them: `29:` id, Entra object id, display name. */
export interface TeamsUser {
  id: string;
  aadObjectId: string;
  name: string;
}

/** A channel of a team (the review channel): conversation id `19:...@thread.tacv2`, and its team. */
export interface TeamsChannelPlace {
  channelId: string;
  teamId: string;
}

/** Where activities come from: the Bot Connector base, the bot and its tenant. */
export interface TeamsOrigin {
  serviceUrl: string;
  appId: string;
  tenantId: string;
  botName?: string;
}

/** A Teams activity as the Bot Framework posts it (loosely typed: tests send arbitrary JSON). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- activities are loosely shaped
export type TeamsActivity = Record<string, any> & { id: string; type: string; serviceUrl: string };

let seq = 0;

/** A user with fresh ids; `tag` makes the ids readable in failures. */
export function teamsUser(name: string, tag = name.toLowerCase().replace(/[^a-z0-9]+/g, '-')): TeamsUser {
  return { id: `29:1${tag}-${randomUUID().slice(0, 8)}`, aadObjectId: randomUUID(), name };
}

/** The id of the bot's personal (1:1) conversation with `user`; stable, as Teams keeps it. */
export function personalConversationId(user: TeamsUser): string {
  return `a:1personal-${user.aadObjectId}`;
}

/** The conversation id of a reply thread in a channel, as Teams names it. */
export function channelThreadId(place: TeamsChannelPlace, rootMessageId: string): string {
  return `${place.channelId};messageid=${rootMessageId}`;
}

/**
 * Builds activities as Teams sends them to the bot, from one origin. Each activity has a fresh
 * unique `id`; personal ones name the user's personal conversation, channel ones the channel.
 */
export class TeamsActivities {
  constructor(private readonly origin: TeamsOrigin) {}

  /** The bot as activities name it (`28:<app id>`). */
  get bot(): { id: string; name: string } {
    return { id: `28:${this.origin.appId}`, name: this.origin.botName ?? 'expertq' };
  }

  /** The app installed in `user`'s personal scope. */
  installation(user: TeamsUser): TeamsActivity {
    return { ...this.personal(user, 'installationUpdate'), action: 'add' };
  }

  /** The bot added to `user`'s personal conversation (arrives alongside the installation). */
  conversationUpdate(user: TeamsUser): TeamsActivity {
    return { ...this.personal(user, 'conversationUpdate'), membersAdded: [{ id: this.bot.id }, { id: user.id, aadObjectId: user.aadObjectId }] };
  }

  /** A message typed by `user`: in the personal chat, in another conversation, or in a channel (mentioning the bot). */
  message(user: TeamsUser, text: string, options: { conversationId?: string; channel?: TeamsChannelPlace; replyToId?: string } = {}): TeamsActivity {
    if (options.channel) {
      const mention = `<at>${this.bot.name}</at>`;
      return {
        ...this.inChannel(user, 'message', options.channel, options.replyToId),
        text: `${mention} ${text}`,
        textFormat: 'plain',
        attachments: [{ contentType: 'text/html', content: `<p>${mention} ${text}</p>` }],
        entities: [{ type: 'mention', mentioned: this.bot, text: mention }, clientInfo()],
      };
    }
    const activity = this.personal(user, 'message', options.conversationId);
    return { ...activity, text, textFormat: 'plain', ...(options.replyToId ? { replyToId: options.replyToId } : {}) };
  }

  /** A press on a card's `Action.Execute` button (Universal Actions): invoke `adaptiveCard/action`. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- card data is loosely shaped
  cardAction(user: TeamsUser, action: { verb: string; data?: Record<string, any>; replyToId: string; conversationId?: string; channel?: TeamsChannelPlace }): TeamsActivity {
    const base = action.channel ? this.inChannel(user, 'invoke', action.channel, action.replyToId) : this.personal(user, 'invoke', action.conversationId);
    return {
      ...base,
      name: 'adaptiveCard/action',
      replyToId: action.replyToId,
      value: { action: { type: 'Action.Execute', verb: action.verb, data: action.data ?? {} }, trigger: 'manual' },
    };
  }

  private common(user: TeamsUser, type: string): TeamsActivity {
    const now = new Date();
    seq += 1;
    return {
      type,
      id: `${Date.now()}${String(seq).padStart(6, '0')}`,
      timestamp: now.toISOString(),
      localTimestamp: now.toISOString(),
      serviceUrl: this.origin.serviceUrl,
      channelId: 'msteams',
      from: { id: user.id, name: user.name, aadObjectId: user.aadObjectId },
      recipient: this.bot,
      locale: 'en-US',
      entities: [clientInfo()],
    };
  }

  private personal(user: TeamsUser, type: string, conversationId = personalConversationId(user)): TeamsActivity {
    return {
      ...this.common(user, type),
      conversation: { conversationType: 'personal', tenantId: this.origin.tenantId, id: conversationId },
      channelData: { tenant: { id: this.origin.tenantId } },
    };
  }

  private inChannel(user: TeamsUser, type: string, place: TeamsChannelPlace, rootMessageId?: string): TeamsActivity {
    const activity = this.common(user, type);
    const id = rootMessageId ? channelThreadId(place, rootMessageId) : channelThreadId(place, activity.id);
    return {
      ...activity,
      conversation: { isGroup: true, conversationType: 'channel', tenantId: this.origin.tenantId, id },
      channelData: {
        teamsChannelId: place.channelId,
        teamsTeamId: place.teamId,
        channel: { id: place.channelId },
        team: { id: place.teamId },
        tenant: { id: this.origin.tenantId },
      },
    };
  }
}

function clientInfo(): Record<string, string> {
  return { type: 'clientInfo', locale: 'en-US', country: 'US', platform: 'Web', timezone: 'Europe/London' };
}
