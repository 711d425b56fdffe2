import { z } from 'zod';
import { durationSchema } from './duration-schema.js';

import { envName } from './setting-schemas.js';
const groups = z.array(z.string().trim().min(1, 'must not be empty').max(200)).default([]);

/** Loopback hosts may use plain http (a provider on the developer's machine); every other issuer is https. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
export const isLoopback = (url: URL) => LOOPBACK.has(url.hostname);

const httpsUrl = z.url({ protocol: /^https?$/ }).refine((text) => {
  const url = new URL(text);
  return url.protocol === 'https:' || isLoopback(url);
}, 'must be an https URL (plain http only on localhost)');

/** `auth.oidc`: reviewers sign in through the organisation's OpenID Connect provider. */
export const oidcSchema = z
  .object({
    issuer: httpsUrl.describe('Reviewer sign-in through your OpenID Connect provider ([sign-in.md](sign-in.md)): the issuer URL (https; plain http only on localhost). Discovered at start-up: unreachable, or not an OpenID provider, stops `serve` with one line.'),
    client_id: z.string().trim().min(1, 'must not be empty').describe('The client registered at the provider.'),
    client_secret_env: envName.describe('Variable holding the client\'s secret (unset: start-up error naming it).'),
    redirect_url: z.url({ protocol: /^https?$/ }).optional().describe('The redirect URL registered at the provider. Unset: `<server.public_url>/auth/callback`.'),
    /** What the sign-in button says ("Sign in with …"); default: the issuer's host name. */
    label: z.string().trim().min(1).max(100).optional().describe('What the sign-in button says: "Sign in with …". Unset: the issuer\'s host.'),
    scopes: z.array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'must be a scope name')).default(['openid', 'email', 'profile']).describe('Scopes asked for; add `groups` where the provider sends groups only for that scope.'),
    name_claim: z.string().min(1).default('email').describe('Claim recorded as `decided_by`.'),
    roles_claim: z.string().min(1).default('groups').describe('Claim holding the person\'s groups.'),
    reviewers: groups.describe('Groups granted the reviewer role; anyone in no group may sign in but do nothing except `GET /me`.'),
    admins: groups.describe('Groups granted the admin role (admin wins over reviewer).'),
    session_ttl: durationSchema.refine((ms) => ms >= 60_000 && ms <= 30 * 86_400_000, 'must be between 1m and 30d').prefault('12h').describe('How long a sign-in lasts (1m to 30d).'),
  })
  .strict()
  .refine((o) => o.scopes.includes('openid'), { path: ['scopes'], message: 'must include "openid"' });

export const authSchema = z
  .object({
    oidc: oidcSchema.optional(),
    session_secret_env: envName.optional().describe('Required with `auth.oidc`: variable with the key that encrypts sign-in cookies, at least 32 bytes (`openssl rand -base64 48`); every instance needs the same value.'),
  })
  .strict()
  .prefault({});
