import addressparser from 'nodemailer/lib/addressparser';
import { z } from 'zod';
import { durationSchema } from './duration-schema.js';
import { envName, patternSchema as pattern } from './setting-schemas.js';


/**
 * `email:`: experts are asked by mail and answer by replying; reviewers may decide from mailed links.
 * Mail goes out over SMTP; replies come in from an IMAP mailbox or a provider's inbound route.
 */
export const emailSchema = z
  .object({
    smtp_url_env: envName.describe('Email channel ([email.md](email.md)): variable with an `smtp://` or `smtps://` URL, credentials inside (`smtps://expertq%40acme.example:app-password@smtp.gmail.com:465`). Unset variable: start-up error naming it.'),
    from: z.string().trim().min(3).max(320).refine((from) => mailbox(from) !== null, 'must be one address such as "Acme expertq <expertq@acme.example>"').describe('From address, e.g. `"Acme expertq <expertq@acme.example>"`.'),
    reply_domain: z.string().trim().regex(/^[a-z0-9.-]+\.[a-z]{2,}$/i, 'must be a domain such as acme.example').optional().describe('Domain of reply addresses: replies go to `<from local part>+<token>@<reply_domain>`. Unset: the From address\'s domain.'),
    imap_url_env: envName.optional().describe('Variable with an `imap://`/`imaps://` URL of the mailbox replies arrive in (IDLE where offered; processed mail is flagged and moved to `expertq-processed`).'),
    imap_poll: durationSchema.refine((ms) => ms >= 1000, 'must be at least 1s').prefault('10s').describe('How often the mailbox is looked at when the server offers no IDLE.'),
    inbound_token_env: envName.optional().describe('Variable with the bearer token a provider\'s inbound route sends to `POST /api/v1/email/inbound` (raw MIME). Unset: the route answers 404.'),
    max_per_minute: z.number().int().min(1).max(60_000).default(600).describe('Most mails this instance sends a minute, spaced evenly (600: one every 100 ms). Mail waiting its turn stays in the outbox and goes out in order, so a burst of questions never slows the API. Lower it to your provider\'s limit (Microsoft 365: 30).'),
    reviewers: z.array(z.email('must be an email address')).default([]).describe('Addresses that get each pending proposal by mail, with Accept, Reject and Send back links.'),
    away_pattern: pattern.default('out of office|ooo|vacation|holiday|on leave|abwesend|absence').describe('An automatic reply whose subject or first lines match this (any case) passes the question on, as an away status does.'),
  })
  .strict();

/** The one mailbox of a From setting, split: null when it is not exactly one address with a domain. */
export function mailbox(from: string): { name: string; address: string; localPart: string; domain: string } | null {
  const parsed = addressparser(from, { flatten: true });
  const one = parsed.length === 1 ? parsed[0]! : null;
  const at = one?.address.lastIndexOf('@') ?? -1;
  if (!one || at <= 0 || at === one.address.length - 1) return null;
  return { name: one.name, address: one.address, localPart: one.address.slice(0, at), domain: one.address.slice(at + 1).toLowerCase() };
}

export type EmailSettings = z.infer<typeof emailSchema>;
