import { timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { AppError } from '../../errors.js';
import type { InboundOutcome } from '../../transport/transport.js';
import { escapeHtml, page, reviewPage, type ReviewPageData } from './email-pages.js';

/** What the email routes hand the email channel. */
export interface EmailEvents {
  /** One raw inbound message (MIME); resolves once what it does is committed. */
  receive(raw: Buffer): Promise<InboundOutcome>;
  /** Mutes the expert a one-click unsubscribe link names; null when the link is not one of ours. */
  unsubscribe(link: string): Promise<{ expertName: string } | null>;
  /** `email.inbound_token_env`'s value; null: the inbound route is off. */
  inboundToken: string | null;
  /** What a review link's page shows, or why the link does not work (a status and a sentence). */
  reviewPage(link: string): Promise<ReviewPageData | { status: number; why: string }>;
  /** Decides as a review link says; the outcome's status and sentence for the page. */
  review(link: string, fields: { reason?: string; instructions?: string }): Promise<{ status: number; title: string; message: string }>;
}

/**
 * The email channel's own routes, outside the bearer-token scope:
 * - `POST /email/inbound`: a provider's inbound route posts each raw message (`message/rfc822`) with
 *   the bearer token of `email.inbound_token_env`. The same message posted twice answers 200 both
 *   times and acts once.
 * - `/email/review?t=…`: a mailed review link. A GET shows the proposal and a form to confirm (with the
 *   reason or instructions a rejection or a send-back needs); only its POST decides, once.
 * - `/email/unsubscribe?t=…`: the one-click unsubscribe link of every ask mail (RFC 8058). A POST
 *   (what a mail client's Unsubscribe button sends) mutes the expert; a GET (the link opened in a
 *   browser) shows a page whose button POSTs, so a link scanner mutes nobody.
 */
export const emailRoutes: FastifyPluginAsync<{ email: EmailEvents | null }> = async (app, { email }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  app.post('/email/inbound', { schema: { hide: true } }, async (req) => {
    if (!email?.inboundToken) throw new AppError('not_found', 'The inbound email route is off: set email.inbound_token_env to turn it on.');
    const given = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
    if (!sameSecret(given, email.inboundToken)) throw new AppError('unauthorized', 'The inbound email route takes the bearer token of email.inbound_token_env.');
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'message/rfc822') throw new AppError('bad_request', 'Post the raw message with Content-Type: message/rfc822.');
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (raw.length === 0) throw new AppError('bad_request', 'The message is empty.');
    return email.receive(raw);
  });

  app.get<{ Querystring: { t?: string } }>('/email/review', { schema: { hide: true } }, async (req, reply) => {
    const shown = email ? await email.reviewPage(req.query.t ?? '') : { status: 404, why: 'Review by email is not set up here.' };
    reply.type('text/html; charset=utf-8');
    if ('why' in shown) return reply.code(shown.status).send(page('This link does not work', `<p>${escapeHtml(shown.why)} Nothing was decided.</p>`));
    return reply.send(reviewPage(shown, `/api/v1/email/review?t=${encodeURIComponent(req.query.t ?? '')}`));
  });

  app.post<{ Querystring: { t?: string } }>('/email/review', { schema: { hide: true } }, async (req, reply) => {
    const form = new URLSearchParams(Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '');
    const text = (name: string) => form.get(name)?.trim() || undefined;
    const done = email
      ? await email.review(req.query.t ?? '', { reason: text('reason'), instructions: text('instructions') })
      : { status: 404, title: 'This link does not work', message: 'Review by email is not set up here.' };
    return reply.code(done.status).type('text/html; charset=utf-8').send(page(done.title, `<p>${escapeHtml(done.message)}</p>`));
  });

  app.get<{ Querystring: { t?: string } }>('/email/unsubscribe', { schema: { hide: true } }, async (req, reply) => {
    const action = `/api/v1/email/unsubscribe?t=${encodeURIComponent(req.query.t ?? '')}`;
    return reply.type('text/html; charset=utf-8').send(
      page('Stop questions by email?', `<p>You will get no more questions from expertq until you reply <code>unmute</code> to one of its mails or an admin unmutes you. Questions waiting for you are passed on.</p><form method="post" action="${escapeHtml(action)}"><button type="submit">Stop questions</button></form>`),
    );
  });

  app.post<{ Querystring: { t?: string } }>('/email/unsubscribe', { schema: { hide: true } }, async (req, reply) => {
    const muted = email && req.query.t ? await email.unsubscribe(req.query.t) : null;
    reply.type('text/html; charset=utf-8');
    if (!muted) return reply.code(400).send(page('This link does not work', '<p>It is not a link expertq made, or it was changed on the way. Reply <code>mute</code> to any question instead.</p>'));
    return reply.send(page('No more questions', `<p>${escapeHtml(muted.expertName)}, you will get no more questions until you reply <code>unmute</code>. Questions waiting for you were passed on.</p>`));
  });
};

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
