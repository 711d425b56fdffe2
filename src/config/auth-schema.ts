import { z } from 'zod';
import { durationSchema } from './duration-schema.js';

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');
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
    issuer: httpsUrl,
    client_id: z.string().trim().min(1, 'must not be empty'),
    client_secret_env: envName,
    redirect_url: z.url({ protocol: /^https?$/ }).optional(),
    /** What the sign-in button says ("Sign in with …"); default: the issuer's host name. */
    label: z.string().trim().min(1).max(100).optional(),
    scopes: z.array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'must be a scope name')).default(['openid', 'email', 'profile']),
    name_claim: z.string().min(1).default('email'),
    roles_claim: z.string().min(1).default('groups'),
    reviewers: groups,
    admins: groups,
    session_ttl: durationSchema.refine((ms) => ms >= 60_000 && ms <= 30 * 86_400_000, 'must be between 1m and 30d').prefault('12h'),
  })
  .strict()
  .refine((o) => o.scopes.includes('openid'), { path: ['scopes'], message: 'must include "openid"' });

export const authSchema = z
  .object({
    oidc: oidcSchema.optional(),
    session_secret_env: envName.optional(),
  })
  .strict()
  .prefault({});
