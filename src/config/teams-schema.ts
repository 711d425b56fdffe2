import { z } from 'zod';
import { envName } from './setting-schemas.js';

const guid = (what: string) => z.guid(`must be ${what} such as 00000000-0000-0000-0000-000000000000`);

/** An https URL, or http on a loopback host (a local stand-in for Microsoft's services). */
const serviceUrl = z.url('must be a URL').refine((value) => {
  const url = new URL(value);
  return url.protocol === 'https:' || (url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname));
}, 'must be https (http only for 127.0.0.1, localhost or [::1])');

/**
 * `teams:`: experts are asked in Microsoft Teams by a bot, proactively in their personal chat once the
 * app is installed for them; reviewers may decide from a Teams channel.
 */
export const teamsSchema = z
  .object({
    app_id: guid('the bot\'s Microsoft app (client) id').describe('Teams ([teams.md](teams.md)): the bot\'s Microsoft app (client) id, from its Entra app registration.'),
    app_password_env: envName.describe('Variable with the app registration\'s client secret. Unset variable: start-up error naming it.'),
    tenant_id: guid('your Entra tenant id').describe('Your organisation\'s Entra tenant id (the bot is single-tenant): activities from another tenant are refused.'),
    review_channel: z.string().trim().min(3).max(300).optional().describe('Teams channel (its conversation id, `19:…@thread.tacv2`) where pending proposals are posted with Accept, Edit, Reject and Send back. Cannot be set with `chat.review_channel`.'),
    reviewers: z.array(guid('an Entra object id')).default([]).describe('Entra object ids of the people allowed to decide from the Teams review channel.'),
    cloud: z
      .object({
        login_url: serviceUrl.optional().describe('Where the bot gets its token: `<login_url>/<tenant_id>/oauth2/v2.0/token`. Unset: `https://login.microsoftonline.com`.'),
        openid_metadata_url: serviceUrl.optional().describe('OpenID metadata listing the keys that sign incoming activities. Unset: the Bot Framework\'s.'),
        token_issuer: z.string().min(1).optional().describe('The `iss` of incoming activity tokens. Unset: `https://api.botframework.com`.'),
        api_url: serviceUrl.optional().describe('Bot Connector base for messages to the review channel. Unset: `https://smba.trafficmanager.net/teams/`; messages to experts use the address their installation gave.'),
      })
      .strict()
      .prefault({})
      .describe('Other Microsoft clouds (US Government, China) and local stand-ins; leave unset for the commercial cloud.'),
  })
  .strict();

export type TeamsSettings = z.infer<typeof teamsSchema>;
