import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, decodeJwt, type JWK } from 'jose';
import Provider from 'oidc-provider';

/** A person the test provider knows: their email and directory groups. */
export interface TestUser {
  email: string;
  groups: string[];
}

export const OIDC_CLIENT_ID = 'expertq';
export const OIDC_CLIENT_SECRET = 'expertq-client-secret-for-tests-only';

export interface TestProvider {
  issuer: string;
  /** Who the next sign-in completes as (the provider's login step is answered without a form). */
  signInAs(email: string): void;
  /** Re-signs the next ID tokens with this audience instead of the client's (a misbehaving provider). */
  forgeAudience(audience: string | null): void;
  close(): Promise<void>;
}

/**
 * A real OpenID provider (`oidc-provider`) on a local port with one confidential client whose
 * redirect URL is `redirectUrl`. Its login and consent interactions are finished programmatically
 * as the user `signInAs` chose; ID tokens carry the `email` and `groups` claims.
 */
export async function startTestProvider(users: Record<string, TestUser>, redirectUrl: string): Promise<TestProvider> {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
  const server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };

  const provider = new Provider(issuer, {
    clients: [{ client_id: OIDC_CLIENT_ID, client_secret: OIDC_CLIENT_SECRET, redirect_uris: [redirectUrl], grant_types: ['authorization_code'], response_types: ['code'] }],
    jwks: { keys: [jwk] },
    cookies: { keys: ['test-provider-cookie-key'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], groups: ['groups'] },
    // The ID token carries the claims the scopes ask for, as most enterprise providers are set up to.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, id) => {
      const user = users[id];
      if (!user) return undefined;
      return { accountId: id, claims: () => ({ sub: id, email: user.email, email_verified: true, groups: user.groups }) };
    },
  });

  let nextUser: string | null = null;
  let forgedAudience: string | null = null;
  provider.use(async (ctx, next) => {
    await next();
    const body = ctx.body as { id_token?: string } | undefined;
    if (forgedAudience && ctx.path === '/token' && body?.id_token) {
      const claims = decodeJwt(body.id_token);
      ctx.body = { ...body, id_token: await new SignJWT({ ...claims, aud: forgedAudience }).setProtectedHeader({ alg: 'RS256', kid: 'test-key' }).sign(privateKey) };
    }
  });
  const callback = provider.callback();
  handler = (req, res) => {
    if (!req.url?.startsWith('/interaction/')) return void callback(req, res);
    void finishInteraction(req, res).catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  };

  async function finishInteraction(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name === 'login') {
      if (!nextUser) throw new Error('the test did not say who signs in (signInAs)');
      return provider.interactionFinished(req, res, { login: { accountId: nextUser } }, { mergeWithLastSubmission: false });
    }
    const grant = new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id as string });
    grant.addOIDCScope(String(details.params.scope));
    return provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
  }

  return {
    issuer,
    signInAs: (id) => { nextUser = id; },
    forgeAudience: (audience) => { forgedAudience = audience; },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/**
 * Follows the browser's way through the provider from an authorization URL until it is sent back to
 * `redirectUrl`, keeping the provider's cookies as a browser would. Returns the callback URL.
 */
export async function throughProvider(authorizationUrl: string, redirectUrl: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = authorizationUrl;
  for (let hop = 0; hop < 10; hop++) {
    if (url.startsWith(redirectUrl)) return new URL(url);
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    const location = res.headers.get('location');
    if (!location) throw new Error(`the provider stopped at ${url} with ${res.status}: ${await res.text()}`);
    url = new URL(location, url).href;
  }
  throw new Error('the provider redirected more than 10 times');
}

/** A `Set-Cookie` header as its name, value (when asked) and sorted attributes, whatever their order. */
export function cookieAttributes(header: string | string[] | null | undefined): { name: string; value?: string; attributes: string[] } {
  const [pair, ...attributes] = String(Array.isArray(header) ? header[0] : header).split(/;\s*/);
  const [name, value] = [pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1)];
  return { name, ...(value === '' ? { value } : {}), attributes: attributes.sort() };
}
