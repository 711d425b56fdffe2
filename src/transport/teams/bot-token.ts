import { decodeJwt } from 'jose';
import * as oauth from 'openid-client';

/** Microsoft's sign-in service, where the bot gets its token unless `teams.cloud.login_url` says otherwise. */
export const MICROSOFT_LOGIN = 'https://login.microsoftonline.com';
/** A token is renewed this long before it expires. */
const EARLY_MS = 5 * 60_000;

/** The identity provider refused the bot's credentials (its reason, e.g. `AADSTS7000215: Invalid client secret provided.`). */
export class BotTokenRefused extends Error {}

/**
 * The bot's own access tokens, by the OAuth client-credentials grant (openid-client) against
 * `<loginUrl>/<tenantId>/oauth2/v2.0/token`, one per scope, kept until five minutes before they
 * expire. The Teams SDK asks for one on every call it makes; it caches none itself, and its MSAL
 * path accepts only Microsoft's own hosts, so the SDK is given this as its token function.
 */
export class BotTokens {
  private readonly config: oauth.Configuration;
  private readonly kept = new Map<string, { token: string; until: number }>();

  constructor(
    loginUrl: string,
    private readonly tenantId: string,
    clientId: string,
    clientSecret: string,
    private readonly now: () => number = Date.now,
  ) {
    const tokenEndpoint = `${loginUrl.replace(/\/+$/, '')}/${encodeURIComponent(tenantId)}/oauth2/v2.0/token`;
    this.config = new oauth.Configuration({ issuer: `${loginUrl.replace(/\/+$/, '')}/${tenantId}/v2.0`, token_endpoint: tokenEndpoint }, clientId, clientSecret);
    // Plain http only reaches a loopback stand-in: the setting refuses anything else.
    if (tokenEndpoint.startsWith('http:')) oauth.allowInsecureRequests(this.config);
  }

  /** A token for `scope` (the SDK's token function). Rejects with `BotTokenRefused` carrying the provider's reason. */
  async token(scope: string | string[]): Promise<string> {
    const key = [scope].flat().join(' ');
    const kept = this.kept.get(key);
    if (kept && kept.until > this.now()) return kept.token;
    let response: Awaited<ReturnType<typeof oauth.clientCredentialsGrant>>;
    try {
      response = await oauth.clientCredentialsGrant(this.config, { scope: key });
    } catch (error) {
      const e = error as { error_description?: string; error?: string; cause?: { error_description?: string }; message?: string };
      throw new BotTokenRefused(e.error_description ?? e.cause?.error_description ?? e.error ?? e.message ?? String(error));
    }
    const lifetime = (response.expires_in ?? 3600) * 1000;
    this.kept.set(key, { token: response.access_token, until: this.now() + lifetime - Math.min(EARLY_MS, lifetime / 2) });
    return response.access_token;
  }

  /**
   * Gets a token now, to tell at start that the credentials work, and that they are this tenant's:
   * a token for another tenant (its `tid`) means `teams.tenant_id` names the wrong organisation.
   */
  async check(scope: string): Promise<void> {
    const token = await this.token(scope);
    let tid: unknown;
    try {
      tid = decodeJwt(token).tid;
    } catch {
      return;
    }
    if (typeof tid === 'string' && tid.toLowerCase() !== this.tenantId.toLowerCase()) {
      throw new BotTokenRefused(`the token is for tenant ${tid}, not teams.tenant_id ${this.tenantId}`);
    }
  }
}
