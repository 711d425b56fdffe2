import { z } from 'zod';

/** Wire shapes of who the caller is: `GET /me` and `GET /auth/session`. */

/** `GET /me`: who the token or the signed-in person is, and what they may call. */
export const meView = z.object({
  name: z.string().nullable().describe('The token\'s name (`server.tokens`) or the signed-in person\'s; null for the single admin token or without authentication.'),
  role: z.enum(['none', 'consumer', 'reviewer', 'admin']).describe('`none`: signed in, but in no reviewer or admin group.'),
  via: z.enum(['token', 'session', 'none']).describe('How the caller proved who they are: a bearer token, a sign-in cookie, or nothing (authentication is off).'),
  routes: z.union([z.literal('*'), z.array(z.string())]).describe('What this token may call: `*`, or "METHOD /path" entries.'),
});

/** `GET /auth/session`: whether sign-in is offered, and who is signed in with this browser. */
export const signInStateView = z.object({
  sign_in: z.object({ label: z.string(), login_url: z.string() }).nullable().describe('Null when sign-in is not configured: use an API token.'),
  session: z.object({ name: z.string(), role: z.enum(['none', 'reviewer', 'admin']), expires_at: z.string() }).nullable()
    .describe('The person signed in with this browser, or null.'),
});
