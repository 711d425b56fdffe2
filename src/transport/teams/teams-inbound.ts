import type { Logger } from 'pino';
import type { TeamsSettings } from '../../config/teams-schema.js';
import type { Inbound, InboundOutcome, ReviewAction, ReviewOutcome } from '../transport.js';
import { ASK_VERB, askCardWithNote, CARD_TYPE, closedAskCard, INPUT, REVIEW_VERB, reviewCard, type Card } from './teams-cards.js';

/** Where the bot writes to one person: the personal conversation their installation opened. */
export interface TeamsConversation {
  conversationId: string;
  serviceUrl: string;
}

/** The personal conversations, by the person's Entra object id (kept in the database: any instance may write). */
export interface ConversationBook {
  get(objectId: string): Promise<TeamsConversation | null>;
  set(objectId: string, conversation: TeamsConversation | null): Promise<void>;
}

/** The fields of a Teams activity expertq reads (the SDK hands it over untyped past its routing). */
interface Activity {
  id: string;
  type: string;
  name?: string;
  action?: string;
  serviceUrl: string;
  text?: string;
  from?: { id?: string; aadObjectId?: string; name?: string };
  recipient?: { id?: string };
  conversation?: { id?: string; conversationType?: string; tenantId?: string };
  channelData?: { tenant?: { id?: string } };
  membersAdded?: Array<{ id?: string }>;
  value?: { action?: { verb?: string; data?: Record<string, unknown> } };
}

const invokeCard = (card: Card) => ({ status: 200, body: { statusCode: 200, type: CARD_TYPE, value: card } });
const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

/** What the expert sees on the card after pressing a button, by what became of it. */
function statusOf(outcome: InboundOutcome): string {
  switch (outcome.outcome) {
    case 'proposed':
      return 'Thank you: your answer was sent for review.';
    case 'skipped':
      return 'Skipped: the question goes to someone else.';
    case 'muted':
      return 'Muted: no more questions until you send `unmute`.';
    case 'duplicate':
      return 'Already handled.';
    case 'not_yours':
      return 'This question was asked of someone else; nothing changed.';
    default:
      return 'This question is closed; nothing changed.';
  }
}

/**
 * Turns Teams activities into what expertq does: an installation keeps the person's conversation; a
 * typed message in it is a reply under the direct-message rules; an ask card's Answer, Skip and Mute
 * act on that ask; the review card's buttons decide (reviewers only). Each activity id counts once.
 */
export class TeamsActivityHandler {
  constructor(
    private readonly inbound: Inbound,
    private readonly settings: TeamsSettings,
    private readonly book: ConversationBook,
    private readonly log: Logger,
  ) {}

  async handle(activity: Activity): Promise<unknown> {
    const tenant = activity.conversation?.tenantId ?? activity.channelData?.tenant?.id;
    if (tenant && tenant.toLowerCase() !== this.settings.tenant_id.toLowerCase()) {
      this.log.warn({ tenant, activity_id: activity.id }, 'Teams activity from another tenant refused');
      return { status: 401, body: { error: 'activity from another tenant' } };
    }
    const person = activity.from?.aadObjectId?.toLowerCase();
    const personal = activity.conversation?.conversationType === 'personal';
    if (activity.type === 'installationUpdate' && person && personal) {
      const removed = activity.action === 'remove' || activity.action === 'remove-upgrade';
      await this.book.set(person, removed ? null : this.placeOf(activity));
      return undefined;
    }
    if (activity.type === 'conversationUpdate' && person && personal && activity.membersAdded?.some((m) => m.id === activity.recipient?.id)) {
      await this.book.set(person, this.placeOf(activity));
      return undefined;
    }
    if (activity.type === 'message' && person && personal) {
      // A message also proves the conversation: an installation event lost on the way is made good.
      await this.book.set(person, this.placeOf(activity));
      const said = (activity.text ?? '').replace(/<at>[^<]*<\/at>/g, '').trim();
      if (said) await this.inbound.reply({ expertId: person, text: said, eventId: `teams:${activity.id}` });
      return undefined;
    }
    if (activity.type === 'invoke' && activity.name === 'adaptiveCard/action' && person) return this.cardAction(activity, person);
    return undefined;
  }

  private placeOf(activity: Activity): TeamsConversation {
    return { conversationId: activity.conversation!.id!, serviceUrl: activity.serviceUrl };
  }

  private async cardAction(activity: Activity, person: string): Promise<unknown> {
    const verb = activity.value?.action?.verb ?? '';
    const data = activity.value?.action?.data ?? {};
    const eventId = `teams:${activity.id}`;
    if (Object.values(ASK_VERB).includes(verb as never)) {
      const askId = text(data.ask_id);
      const elements = Array.isArray(data.elements) ? data.elements.filter((e): e is string => typeof e === 'string') : [];
      const reply = verb === ASK_VERB.answer ? text(data[INPUT.answer]) : verb === ASK_VERB.skip ? 'skip' : 'mute';
      // An empty box is not an answer: the card stays as it was, with a line saying so.
      if (!reply) return invokeCard(askCardWithNote(elements, askId, 'Write your answer in the box, then press Answer.'));
      const outcome = await this.inbound.reply({ expertId: person, askId, text: reply, eventId });
      return invokeCard(closedAskCard(elements, statusOf(outcome)));
    }
    const action = ({ [REVIEW_VERB.accept]: 'accept', [REVIEW_VERB.edit]: 'accept', [REVIEW_VERB.reject]: 'reject', [REVIEW_VERB.return]: 'return' } as const)[verb];
    if (!action) return undefined;
    const review: ReviewAction & { via: 'teams' } = {
      proposalId: text(data.proposal_id),
      userId: person,
      userName: activity.from?.name ?? person,
      action,
      answer: verb === REVIEW_VERB.edit ? text(data[INPUT.editedAnswer]) || undefined : undefined,
      reason: text(data[INPUT.reason]) || undefined,
      instructions: text(data[INPUT.instructions]) || undefined,
      eventId,
      via: 'teams',
    };
    // Teams clients enforce the forms' required fields; a press without them is refused here too.
    const missing = verb === REVIEW_VERB.edit && !review.answer ? 'Write the answer to deliver' : action === 'reject' && !review.reason ? 'Say why the answer is rejected' : action === 'return' && !review.instructions ? 'Say what the expert should change' : null;
    const outcome: ReviewOutcome | null = missing ? null : await this.inbound.review(review);
    const card = await this.inbound.reviewCard?.(review.proposalId);
    if (!card) return undefined;
    const note = missing ? `${missing}; nothing changed.` : outcome!.outcome === 'decided' ? undefined : outcome!.message;
    return invokeCard(reviewCard(card, note));
  }
}
