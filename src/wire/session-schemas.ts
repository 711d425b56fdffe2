import { z } from 'zod';

/** Wire shapes of the sign-in sessions (`GET /sessions`, `DELETE /sessions`). */

export const sessionView = z.object({
  name: z.string().describe('The name the identity provider vouched for (`auth.oidc.name_claim`)'),
  role: z.enum(['none', 'reviewer', 'admin']).describe('The role the person\'s groups granted when they signed in'),
  started_at: z.string(),
  expires_at: z.string(),
  last_seen: z.string().describe('The last request made with the session, to within five minutes'),
});

export const sessionList = z.object({ items: z.array(sessionView) });

export const revokeSessionsQuery = z.object({
  name: z.string().trim().min(1).max(200).describe('The person whose sessions end, exactly as `GET /sessions` lists them'),
});

export const revokeSessionsResult = z.object({ name: z.string(), ended: z.number().int().describe('How many live sessions were ended (0: none was live)') });
