import type Mail from 'nodemailer/lib/mailer';
import type { OutboundMessage, ReviewCard } from '../transport.js';
import { votesLines } from '../review-card-text.js';
import { htmlDocument, oneLine } from './mail-html.js';
import { readSignedLink, signedLink } from './mail-tokens.js';

/** The route a review link opens: a page to confirm on (GET), whose form decides (POST). */
export const REVIEW_PATH = '/api/v1/email/review';
const REVIEW_PURPOSE = 'review';
/** How long a mailed review link works. */
export const REVIEW_LINK_MS = 24 * 3_600_000;

export type MailedDecision = 'accept' | 'reject' | 'return';
const DECISIONS: readonly MailedDecision[] = ['accept', 'reject', 'return'];

/** What a review link names: one decision on one proposal, by one reviewer. */
export interface ReviewLink {
  proposalId: string;
  action: MailedDecision;
  /** The reviewer's address, as `email.reviewers` has it (lower case). */
  reviewer: string;
}

/** The value of a review link (`?t=…`): signed, naming the reviewer, expiring at `expiresAt`. */
export function reviewToken(secret: string, link: ReviewLink, expiresAt: number): string {
  return signedLink(secret, REVIEW_PURPOSE, JSON.stringify([link.proposalId, link.action, link.reviewer]), expiresAt);
}

/** Reads a review link's value; null when it is not one of ours, was changed, or has expired at `now`. */
export function readReviewToken(secret: string, value: string, now: number): ReviewLink | null {
  const signed = readSignedLink(secret, REVIEW_PURPOSE, value, now);
  if (!signed) return null;
  const [proposalId, action, reviewer] = JSON.parse(signed.payload) as [string, MailedDecision, string];
  return DECISIONS.includes(action) ? { proposalId, action, reviewer } : null;
}

export interface ReviewMailContext {
  orgName: string;
  from: string;
  publicUrl: string;
  secret: string;
  messageId: string;
  /** When the links stop working (the mail says so). */
  expiresAt: number;
}

/**
 * A pending proposal mailed to one reviewer (`message.expertId` is their address): what was asked,
 * by whom and why, who answered and what, then one link per decision. A link opens a page that asks
 * to confirm, so a mail scanner that follows links decides nothing.
 */
export function reviewMail(message: OutboundMessage & { card: ReviewCard }, ctx: ReviewMailContext): Mail.Options {
  const card = message.card;
  const link = (action: MailedDecision) =>
    `${ctx.publicUrl.replace(/\/+$/, '')}${REVIEW_PATH}?t=${reviewToken(ctx.secret, { proposalId: card.proposalId, action, reviewer: message.expertId }, ctx.expiresAt)}`;
  const paragraphs = [
    // A reminder says so; otherwise the mail is the first word of the proposal.
    message.text.startsWith('Reminder:') ? `${message.text} (${ctx.orgName})` : `An answer waits for your review (${ctx.orgName}).`,
    `Question: ${card.question}`,
    `Asked by ${card.consumerId}${card.askedBecause ? ` because: ${card.askedBecause}` : ''}`,
    `Answer from ${card.expertName}${card.source ? ` (${card.source})` : ''}:\n${card.answer}`,
    ...votesLines(card),
    `Accept: ${link('accept')}`,
    `Reject: ${link('reject')}`,
    `Send back to the expert: ${link('return')}`,
    `Each link opens a page where you confirm; it works once, until ${new Date(ctx.expiresAt).toISOString().slice(0, 16).replace('T', ' ')} UTC.`,
  ];
  return {
    from: ctx.from,
    to: message.expertId,
    subject: `Review: ${oneLine(card.question, 60)}`,
    messageId: ctx.messageId,
    headers: { 'Auto-Submitted': 'auto-generated' },
    text: `${paragraphs.join('\n\n')}\n`,
    html: htmlDocument(paragraphs),
  };
}
