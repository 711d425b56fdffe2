import type Mail from 'nodemailer/lib/mailer';
import type { OutboundMessage } from '../transport.js';
import { htmlDocument, oneLine } from './mail-html.js';
import { replyAddress, replyToken, signedLink } from './mail-tokens.js';

/** What an outbound mail needs besides the message itself; the email channel fills it from its config. */
export interface AskMailContext {
  /** `org.name`, shown in the subject. */
  orgName: string;
  /** The From header, e.g. `"Acme expertq <expertq@acme.example>"`. */
  from: string;
  /** The expert's address. */
  to: string;
  /** Domain of reply addresses. */
  replyDomain: string;
  /** Local part of reply addresses, before the `+token`. */
  fromLocalPart: string;
  /** `server.public_url`: base of the links in the mail. */
  publicUrl: string;
  /** Key of the reply tokens and signed links. */
  secret: string;
  /** The Message-ID this mail goes out with (see `newMessageId`); stored with the ask to thread replies. */
  messageId: string;
  expertId: string;
  /** The subject the ask went out with, so what follows it reads `Re: …` in the expert's client. */
  askSubject?: string | null;
}

/** The one-click unsubscribe route (RFC 8058): a POST to it mutes the expert the link names. */
export const UNSUBSCRIBE_PATH = '/api/v1/email/unsubscribe';
/** `signedLink` purpose of the unsubscribe link; its payload is the expert id. */
export const UNSUBSCRIBE_PURPOSE = 'unsubscribe';
const QUESTION_PREFIX = 'Question: ';
const SUBJECT_QUESTION_CHARS = 60;

/**
 * A Message-ID for an outbound mail, `<id@domain>`, from the ask or message id it carries. The same id
 * gives the same Message-ID, so a send retried after a timeout is recognised as one mail downstream.
 */
export function newMessageId(askOrMessageId: string, domain: string): string {
  return `<${askOrMessageId.replace(/[^A-Za-z0-9._-]/g, '-')}@${domain}>`;
}

/** The unsubscribe link of mail to an expert; it does not expire, as a mail can be years old when used. */
export function unsubscribeUrl(publicUrl: string, secret: string, expertId: string): string {
  return `${publicUrl.replace(/\/+$/, '')}${UNSUBSCRIBE_PATH}?t=${signedLink(secret, UNSUBSCRIBE_PURPOSE, expertId)}`;
}

/** The question of an ask's elements (the one starting `Question: `), without that label. */
function questionOf(elements: readonly string[]): string {
  const element = elements.find((e) => e.startsWith(QUESTION_PREFIX)) ?? elements[2] ?? '';
  return element.startsWith(QUESTION_PREFIX) ? element.slice(QUESTION_PREFIX.length) : element;
}

/** `Question from <org>: <question>`, the question on one line and cut to 60 characters with `…`. */
export function askSubject(orgName: string, elements: readonly string[]): string {
  return `Question from ${orgName}: ${oneLine(questionOf(elements), SUBJECT_QUESTION_CHARS)}`;
}

/**
 * The opt-out, the last element, worded for a mail client: no buttons, so it says to reply with the
 * single word. Same meaning as everywhere (`mute` stops questions, `skip` passes this one along), and
 * the guide link the element ends with, when it has one.
 */
export function emailOptOut(element: string): string {
  const guide = /https?:\/\/\S+$/.exec(element.trim())?.[0];
  const sentence =
    'To stop receiving questions, reply with the single word `mute`; to pass this one along, reply with the single word `skip`.';
  return guide ? `${sentence} How expertq treats your time: ${guide}` : sentence;
}

function bracketed(messageId: string): string {
  const id = messageId.trim();
  return id.startsWith('<') ? id : `<${id}>`;
}

/** Headers every mail of the channel carries: who answers, that it is automatic, how to opt out. */
function commonOptions(message: OutboundMessage, ctx: AskMailContext): Mail.Options {
  const token = message.askId ? replyToken(ctx.secret, message.askId, ctx.expertId) : null;
  return {
    from: ctx.from,
    to: ctx.to,
    replyTo: token ? replyAddress(ctx.fromLocalPart, token, ctx.replyDomain) : `${ctx.fromLocalPart}@${ctx.replyDomain}`,
    messageId: ctx.messageId,
    // Not `X-Auto-Response-Suppress`: an out-of-office reply to an ask is wanted, it passes the ask on.
    headers: { 'Auto-Submitted': 'auto-generated', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
    list: { unsubscribe: unsubscribeUrl(ctx.publicUrl, ctx.secret, ctx.expertId) },
  };
}

function otherSubject(message: OutboundMessage, ctx: AskMailContext): string {
  if (ctx.askSubject) return /^re:/i.test(ctx.askSubject) ? ctx.askSubject : `Re: ${ctx.askSubject}`;
  switch (message.purpose) {
    case 'accepted':
      return `Your answer was accepted (${ctx.orgName})`;
    case 'feedback':
      return `Feedback on your answer (${ctx.orgName})`;
    case 'ask_update':
      return `Update on a question from ${ctx.orgName}`;
    default:
      return `A note from ${ctx.orgName}`;
  }
}

/**
 * A message to an expert as a mail, ready for `SmtpSender.send`. An `ask` shows its elements in order,
 * one paragraph each, in the text and the HTML part, with the opt-out worded for mail; its Reply-To
 * carries a token tying a reply to this ask and expert. Anything else (acceptance, feedback, notices,
 * updates) is its text, threaded under the ask when `message.thread.ts` holds the ask's Message-ID.
 */
export function askMail(message: OutboundMessage, ctx: AskMailContext): Mail.Options {
  const common = commonOptions(message, ctx);
  if (message.purpose === 'ask' && message.elements && message.elements.length > 0) {
    const elements = [...message.elements.slice(0, -1), emailOptOut(message.elements.at(-1)!)];
    return { ...common, subject: askSubject(ctx.orgName, elements), text: `${elements.join('\n\n')}\n`, html: htmlDocument(elements) };
  }
  const paragraphs = message.text.split(/\r?\n\s*\r?\n/).map((p) => p.trim()).filter((p) => p.length > 0);
  const parent = message.thread?.ts ? bracketed(message.thread.ts) : null;
  return {
    ...common,
    subject: otherSubject(message, ctx),
    text: `${paragraphs.join('\n\n')}\n`,
    html: htmlDocument(paragraphs),
    ...(parent ? { inReplyTo: parent, references: [parent] } : {}),
  };
}
