import type { ChannelName, ExpertChannel } from '../domain/channels.js';
import type { ChatRef, MessagePurpose } from '../domain/records.js';

/** A direct message to one expert. */
export interface OutboundMessage {
  id: string;
  expertId: string;
  requestId: string | null;
  askId: string | null;
  purpose: MessagePurpose;
  /** The channel it goes out on (an ask's channel for the ask's messages); null: the only one running. */
  channel: ChannelName | null;
  text: string;
  /** `ask`: its six elements. `ask_update`: the six elements of the ask being updated (`text` is the status). */
  elements: string[] | null;
  /** Where the ask this message belongs to was posted (threaded transports), once it was. */
  thread: ChatRef | null;
  /** `review_card` and `review_update`: the proposal as it stands when the message goes out. */
  card?: ReviewCard | null;
  /** `review_update`: where the card was posted. */
  cardRef?: ChatRef | null;
}

/** A pending (or just decided) proposal as the review channel shows it. */
export interface ReviewCard {
  proposalId: string;
  question: string;
  consumerId: string;
  askedBecause: string | null;
  expertId: string;
  expertName: string;
  answer: string;
  /** Where the answer comes from when it is not a new one (the library); absent or null otherwise. */
  source?: string | null;
  /** A reused answer's question as first asked, to compare with this one. */
  originalQuestion?: string | null;
  /** Null while pending. */
  decision: { outcome: 'accepted' | 'rejected' | 'returned' | 'withdrawn'; by: string; at: string; detail: string | null } | null;
  /** Set when the request passed its give-up time while the proposal waited for review: why it still waits. */
  overdue: string | null;
  /** Under a review rule: the votes so far and who has yet to vote; absent or null for a proposal no rule covers. */
  review?: ReviewCardVotes | null;
}

/** Where the vote on a proposal stands, as the review messages show it. */
export interface ReviewCardVotes {
  rule: string;
  approvalsNeeded: number;
  votes: Array<{ by: string; decision: 'accept' | 'reject'; at: string }>;
  /** The rule's reviewers (and required sign-offs) who have not voted, as the rule names them. */
  stillToVote: string[];
}

/** What a transport reports back for a message it posted. */
export interface SentMessage {
  /** Where an `ask` landed, so replies in its thread and later updates find it. */
  chat?: ChatRef;
  /** Where a `review_card` landed, so decisions update it. */
  reviewCard?: ChatRef;
}

/**
 * The code of a send given up before it started (the process is stopping while the message waited its
 * turn): nothing went out and nothing is recorded, so the message stays in the outbox, as it was, for
 * whichever process claims it next.
 */
export const NOT_SENT = 'not_sent';

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
  /** The channel it came in on (the console's replies come through the API). */
  channel?: ChannelName;
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

/** A reviewer's decision taken in the chat platform (the review channel's buttons and forms). */
export interface ReviewAction {
  proposalId: string;
  /** The platform's user id (checked against `chat.reviewers` and the answering expert). */
  userId: string;
  userName: string;
  action: 'accept' | 'reject' | 'return';
  answer?: string | undefined;
  reason?: string | undefined;
  instructions?: string | undefined;
  eventId?: string | undefined;
  /** Where it was taken: the Teams review channel (`teams.reviewers`), else Slack's (`chat.reviewers`). */
  via?: 'teams' | undefined;
}

/**
 * What became of a review action; `refused` and `already_decided` carry a sentence for the user, and so
 * does `recorded`: a vote under a review rule that left the proposal waiting ("Approval recorded: 1 of 2…").
 */
export interface ReviewOutcome {
  outcome: 'decided' | 'recorded' | 'refused' | 'already_decided' | 'duplicate';
  message: string;
  /** The review rule that governs the proposal, when one does (then `message` says where its vote stands). */
  rule?: string;
}

/**
 * What the chat platform says of an expert's own status (instants are ms since the epoch): in
 * do-not-disturb (or snoozed) until `dndUntil`, showing an away status until `awayUntil`; null: not.
 */
export interface Presence {
  dndUntil: number | null;
  awayUntil: number | null;
}

/** What an expert's home page in the chat platform shows them (instants are ms since the epoch). */
export interface ExpertHome {
  expertId: string;
  name: string;
  topics: string[];
  muted: boolean;
  away: { until: number; delegateTo: string | null; note: string | null } | null;
  /** The questions waiting for their answer, oldest first. */
  openQuestions: Array<{ requestId: string; question: string; askedAt: number }>;
  /** The other experts, who may stand in while they are away. */
  colleagues: Array<{ id: string; name: string }>;
  /** The expert's time zone, in which dates are shown and the away date is read. */
  timeZone: string;
}

/** An away spell as an expert sets it themselves: `until` is a date or time or duration, as the API takes it. */
export interface AwayRequest {
  until: string;
  delegateTo: string | null;
  note: string | null;
}

/** What a transport hands to expertq: experts' replies and, from a review channel, reviewers' decisions. */
export interface Inbound {
  reply(reply: InboundReply): Promise<InboundOutcome>;
  review(action: ReviewAction): Promise<ReviewOutcome>;
  /** A proposal's current answer (to prefill a reviewer's edit form), or null. */
  answerOf(proposalId: string): Promise<string | null>;
  /** A proposal as the review channel shows it now (the card that answers a reviewer's press), or null. */
  reviewCard?(proposalId: string): Promise<ReviewCard | null>;
  /** What the expert's home page shows; null for someone who is not a registered expert. */
  home(expertId: string): Promise<ExpertHome | null>;
  /**
   * The expert sets themselves away (`away`) or back (null), as the API does; resolves with null when
   * done, or with a sentence saying why the spell was not set.
   */
  setAway(expertId: string, away: AwayRequest | null): Promise<string | null>;
  /** An expert's automatic away reply to an ask (an out-of-office mail): the ask is passed on as for an away status. */
  autoReply(notice: AutoReplyNotice): Promise<InboundOutcome>;
  /** A sent ask could not be delivered after all (a bounce): a permanent failure of its channel. */
  undeliverable(notice: UndeliverableNotice): Promise<InboundOutcome>;
  /** Something that came in was refused (a reply token that does not verify, a failed DMARC check): audited, never an answer. */
  refused(notice: RefusedNotice): Promise<InboundOutcome>;
}

export interface AutoReplyNotice {
  expertId: string;
  channel?: ChannelName;
  /** The ask it answers (by its reply token), or where it threads. */
  askId?: string;
  thread?: ChatRef;
  eventId?: string;
  /** What it is, for the audit (`email_auto_reply`). */
  source: string;
}

export interface UndeliverableNotice {
  channel: ExpertChannel;
  /** Where the ask that bounced was sent (its message id). */
  thread: ChatRef;
  eventId?: string;
  error: string;
}

export interface RefusedNotice {
  channel: ExpertChannel;
  why: string;
  /** The ask it names, when it names one (then the refusal is in that request's audit). */
  askId?: string;
  eventId?: string;
}

/** Where experts are on each channel: the registry's addresses, both ways. */
export interface AddressBook {
  /** The expert's address on a channel (their Slack user id, email address), or null when they have none there. */
  addressOf(expertId: string, channel: ExpertChannel): string | null;
  /** The expert at an address on a channel (email: any case), or null. */
  expertAt(channel: ExpertChannel, address: string): string | null;
}

/**
 * How expertq talks to experts (Bolt's Receiver shape: start/stop around a long-lived connection).
 * `send` resolves once the platform accepted the message and rejects to have it retried.
 * Inbound handlers commit before they resolve, so a transport acknowledges its platform only after.
 */
export interface Transport {
  readonly name: 'console' | 'chat' | 'email' | 'teams' | 'channels';
  /** The channel it is (absent for a set of channels). */
  readonly channel?: ChannelName;
  /** Has threads and can edit its messages (see `Engine.threadedTransport`). */
  readonly threaded: boolean;
  send(message: OutboundMessage): Promise<SentMessage | void>;
  /** Whether it carries this message at all (email edits nothing it sent: `ask_update` is dropped); default yes. */
  carries?(message: OutboundMessage): boolean;
  /** The expert's do-not-disturb and status, asked of the platform now (rejects when it cannot say). */
  presence?(expertId: string): Promise<Presence>;
  /** Why the transport cannot carry messages now (for `/readyz`), or null when it can. */
  notReady?(): string | null;
  /** Gives up the sends still waiting for their turn (they reject with `NOT_SENT`); sends under way finish. */
  stopSending?(): void;
  start(inbound: Inbound): Promise<void>;
  stop(): Promise<void>;
}
