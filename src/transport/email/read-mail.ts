import { simpleParser, type AddressObject, type HeaderLines, type ParsedMail } from 'mailparser';
import { dmarcFail } from './dmarc-fail.js';
import { headerValue, headerValues, messageIds } from './mail-headers.js';
import { isDeliveryReport, readBounce, type BounceFacts } from './read-bounce.js';
import { replyText } from './reply-text.js';

export { mailCommand, type MailCommand } from './reply-text.js';
export type { BounceFacts } from './read-bounce.js';

/** What every inbound message carries, whatever kind it is. */
export interface InboundMailCommon {
  /** `<id@host>`, angle brackets kept; null when the message has none. */
  messageId: string | null;
  /** The From address, bare and lower-cased, as written: it is not verified here. */
  from: string | null;
  subject: string;
  /** The token of a `<local part>+<token>@<reply domain>` address among To, Cc, Delivered-To and X-Original-To, as written. */
  token: string | null;
  /** In-Reply-To first, then References, without repeats, angle brackets kept. */
  references: string[];
  /** The receiving server's Authentication-Results say DMARC failed for the From domain. */
  dmarcFail: boolean;
}

/**
 * One inbound message, read: an expert's `reply` (its new text only), an out-of-office (`away`), other
 * `automatic` mail that is never an answer, or a delivery status notification (`bounce`).
 */
export type InboundMail = InboundMailCommon &
  (
    | { kind: 'reply'; text: string }
    | { kind: 'away' }
    | { kind: 'automatic'; why: string }
    | ({ kind: 'bounce' } & BounceFacts)
  );

export interface ReadMailOptions {
  /** Domain of the reply addresses, e.g. `acme.example`. */
  replyDomain: string;
  /** Local part before the `+token`, e.g. `expertq`. */
  fromLocalPart: string;
  /** What marks an auto-reply as an out-of-office, tested on its subject and first lines. */
  awayPattern?: RegExp;
}

export const DEFAULT_AWAY_PATTERN = /out of office|ooo|vacation|holiday|on leave|abwesend|absence/i;

/** How many non-blank lines at the top of an auto-reply are searched for `awayPattern`. */
const AWAY_LINES = 5;

/**
 * Reads one raw inbound message (RFC 5322 / MIME) and says what it is. Pure apart from parsing: who may
 * reply, which ask it answers and whether it was seen before are the caller's decisions.
 */
export async function readInboundMail(raw: Buffer | string, options: ReadMailOptions): Promise<InboundMail> {
  const mail = await simpleParser(raw, { keepDeliveryStatus: true, skipTextToHtml: true, skipImageLinks: true });
  const lines = mail.headerLines;
  const from = firstAddress(mail.from);
  const common: InboundMailCommon = {
    messageId: mail.messageId ?? null,
    from,
    subject: mail.subject ?? '',
    token: findToken(mail, options),
    references: unique([...headerValues(lines, 'in-reply-to'), ...headerValues(lines, 'references')].flatMap(messageIds)),
    dmarcFail: dmarcFail(headerValues(lines, 'authentication-results'), from?.split('@').pop() ?? null),
  };
  if (isDeliveryReport(mail)) return { ...common, kind: 'bounce', ...readBounce(mail) };
  const auto = automaticMarker(lines);
  if (auto) {
    const pattern = withoutState(options.awayPattern ?? DEFAULT_AWAY_PATTERN);
    const top = (mail.text ?? '').split('\n').filter((l) => l.trim() !== '').slice(0, AWAY_LINES);
    if (auto.autoReply && [common.subject, ...top].some((t) => pattern.test(t))) return { ...common, kind: 'away' };
    return { ...common, kind: 'automatic', why: auto.why };
  }
  return { ...common, kind: 'reply', text: await replyText(mail) };
}

/**
 * The header that marks a message as sent by a machine, if any: `Auto-Submitted` other than `no`
 * (RFC 3834), the `X-Autoreply`/`X-Autorespond` headers some servers add instead, and `Precedence:
 * auto_reply|bulk|junk`. `autoReply` is set for the markers that say "an answer to your message"
 * (`auto-replied`, `X-Autoreply`, `X-Autorespond`, `Precedence: auto_reply`), the only ones that can be
 * an out-of-office; `auto-generated`, `bulk` and `junk` are notifications and newsletters.
 */
function automaticMarker(lines: HeaderLines): { why: string; autoReply: boolean } | null {
  const submitted = firstToken(headerValue(lines, 'auto-submitted'));
  if (submitted && submitted !== 'no') return { why: `auto-submitted: ${submitted}`, autoReply: submitted === 'auto-replied' };
  for (const name of ['x-autoreply', 'x-autorespond']) {
    if (headerValue(lines, name) !== null) return { why: name, autoReply: true };
  }
  const precedence = firstToken(headerValue(lines, 'precedence'));
  if (precedence && ['auto_reply', 'bulk', 'junk'].includes(precedence)) return { why: `precedence: ${precedence}`, autoReply: precedence === 'auto_reply' };
  return null;
}

/** The reply-address token among the addresses the message was delivered to. */
function findToken(mail: ParsedMail, options: ReadMailOptions): string | null {
  const local = options.fromLocalPart.toLowerCase();
  const domain = options.replyDomain.toLowerCase();
  const raw = ['delivered-to', 'x-original-to'].flatMap((name) => headerValues(mail.headerLines, name)).flatMap((v) => v.split(','));
  const candidates = [...addresses(mail.to), ...addresses(mail.cc), ...raw.map((v) => v.trim().replace(/^<|>$/g, ''))];
  for (const address of candidates) {
    const at = address.lastIndexOf('@');
    const plus = address.indexOf('+');
    if (at < 0 || plus < 0 || plus > at) continue;
    if (address.slice(0, plus).toLowerCase() === local && address.slice(at + 1).toLowerCase() === domain && at > plus + 1) {
      return address.slice(plus + 1, at);
    }
  }
  return null;
}

/** Every address of an address header, group members included, as written. */
function addresses(header: AddressObject | AddressObject[] | undefined): string[] {
  const objects = header === undefined ? [] : Array.isArray(header) ? header : [header];
  type Entry = AddressObject['value'][number];
  const walk = (entries: Entry[]): string[] => entries.flatMap((e) => [...(e.address ? [e.address] : []), ...walk(e.group ?? [])]);
  return objects.flatMap((o) => walk(o.value));
}

function firstAddress(header: AddressObject | undefined): string | null {
  return addresses(header)[0]?.toLowerCase() ?? null;
}

/** `auto-replied; owner-email="…"` → `auto-replied`. */
function firstToken(value: string | null): string | null {
  return value === null ? null : (value.split(';')[0] ?? '').trim().toLowerCase() || null;
}

/** A `g` or `y` flag would make `test` remember where it stopped between calls. */
function withoutState(pattern: RegExp): RegExp {
  return new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''));
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
