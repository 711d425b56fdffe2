import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { TeamsActivities } from './teams-activities.js';

/** The resource the bot asks a token for (`<resource>/.default`), as the SDK's public cloud does. */
export const BOT_SCOPE = 'https://api.botframework.com/.default';
/** The `iss` of activity tokens, as the Bot Framework signs them. */
export const TOKEN_ISSUER = 'https://api.botframework.com';
const KID = 'fake-teams-key-1';

/** One Bot Connector call as the fake received it. */
export interface ConnectorCall {
  method: string;
  path: string;
  /** Decoded; for `POST /v3/conversations`, the id the fake created (or undefined when refused). */
  conversationId?: string;
  activityId?: string;
  /** For a POST of an activity: the id the fake gave it. */
  created?: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- activities are loosely shaped
  body: any;
  /** What the fake answered. */
  status: number;
}

/** One client-credentials request to the token endpoint. */
export interface TokenRequest {
  tenantId: string;
  clientId: string | undefined;
  scope: string | undefined;
  grantType: string | undefined;
  /** Whether a token was issued. */
  granted: boolean;
}

/** How `signActivity` departs from what the Bot Framework sends (nothing set: a valid token). */
export interface SignOptions {
  /** No Authorization header at all. */
  unsigned?: boolean;
  /** Signed with a key the metadata does not list, under the listed key id (only the signature check catches it). */
  unknownKey?: boolean;
  /** Expired an hour ago (beyond the SDK's five-minute clock tolerance). */
  expired?: boolean;
  /** `aud` other than the app id. */
  audience?: string;
  /** `serviceurl` claim other than the activity's `serviceUrl`. */
  serviceUrl?: string;
  /** `iss` other than the cloud's token issuer. */
  issuer?: string;
}

export interface FakeTeamsOptions {
  appId?: string;
  appPassword?: string;
  tenantId?: string;
}

interface Failure {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

const FAILURES: Record<number, { code: string; message: string }> = {
  401: { code: 'Unauthorized', message: 'Authorization has been denied for this request.' },
  403: { code: 'BotNotInConversationRoster', message: 'The bot is not part of the conversation roster.' },
  404: { code: 'ConversationNotFound', message: 'Conversation not found.' },
  429: { code: 'Throttled', message: 'Too many requests.' },
  500: { code: 'ServiceError', message: 'Internal server error.' },
};

/** The fake's signing key and one it does not publish: made once per test process (an RSA pair costs a few hundred ms of CPU). */
let keys: ReturnType<typeof makeKeys> | undefined;
const makeKeys = () => Promise.all([generateKeyPair('RS256'), generateKeyPair('RS256')]);

/**
 * Microsoft's services at the network boundary, for tests of the Teams channel: the Entra token
 * endpoint (client credentials), the Bot Framework's OpenID metadata and signing keys, the Bot
 * Connector (`serviceUrl`) and the user token service the SDK asks on every inbound activity. It
 * signs activities as the Bot Framework does, records every call, and can refuse tokens or fail a
 * conversation.
 */
export class FakeTeams {
  readonly appId: string;
  readonly appPassword: string;
  readonly tenantId: string;
  readonly calls: ConnectorCall[] = [];
  readonly tokenRequests: TokenRequest[] = [];
  private readonly issued = new Set<string>();
  private readonly failures = new Map<string, Failure>();
  private refusing = false;
  private nextConversation = 1;
  private nextActivity = 1;
  private base = '';

  private constructor(
    options: FakeTeamsOptions,
    private readonly server: Server,
    private readonly key: CryptoKey,
    private readonly otherKey: CryptoKey,
    private readonly jwk: JWK,
  ) {
    this.appId = options.appId ?? '00000000-0000-4000-8000-00000000a11d';
    this.appPassword = options.appPassword ?? 'fake-client-secret';
    this.tenantId = options.tenantId ?? '00000000-0000-4000-8000-0000000071d0';
  }

  /** Starts the fake on 127.0.0.1 on a free port. */
  static async start(options: FakeTeamsOptions = {}): Promise<FakeTeams> {
    const [{ privateKey, publicKey }, other] = await (keys ??= makeKeys());
    const jwk = { ...(await exportJWK(publicKey)), kid: KID, use: 'sig', endorsements: ['msteams'] };
    const server = createServer();
    const fake = new FakeTeams(options, server, privateKey, other.privateKey, jwk);
    server.on('request', (req, res) => void fake.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    fake.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return fake;
  }

  /** The fake's origin, e.g. http://127.0.0.1:41234. */
  get url(): string {
    return this.base;
  }

  /** The Bot Connector base activities carry as `serviceUrl`. */
  get serviceUrl(): string {
    return `${this.base}/teams/`;
  }

  /** Where the SDK asks for user tokens (`<tokenServiceUrl>/api/usertoken/...`); always answers 404. */
  get tokenServiceUrl(): string {
    return this.base;
  }

  /** Builders of activities from this fake's Bot Connector to this app (see teams-activities.ts). */
  get activities(): TeamsActivities {
    return new TeamsActivities({ serviceUrl: this.serviceUrl, appId: this.appId, tenantId: this.tenantId });
  }

  /** The `teams.cloud` configuration that points expertq at this fake. */
  get cloud(): { login_url: string; openid_metadata_url: string; token_issuer: string; api_url: string } {
    return {
      login_url: this.base,
      openid_metadata_url: `${this.base}/v1/.well-known/openidconfiguration`,
      token_issuer: TOKEN_ISSUER,
      api_url: this.serviceUrl,
    };
  }

  /** While on, every token request is refused as a wrong client secret is. */
  refuseTokens(on: boolean): void {
    this.refusing = on;
  }

  /**
   * Makes every Bot Connector call on a conversation answer `status` with the Bot Connector's error
   * body (429 also with Retry-After); `null` heals it. For `POST /v3/conversations` the key is the
   * first member's id (`29:...`).
   */
  failConversation(conversationId: string, status: number | null, options: { retryAfterSeconds?: number; code?: string; message?: string } = {}): void {
    if (status === null) {
      this.failures.delete(conversationId);
      return;
    }
    const known = FAILURES[status] ?? { code: 'Error', message: `Failed with ${status}.` };
    const headers: Record<string, string> = status === 429 ? { 'retry-after': String(options.retryAfterSeconds ?? 1) } : {};
    const body = { error: { code: options.code ?? known.code, message: options.message ?? known.message } };
    this.failures.set(conversationId, { status, body, headers });
  }

  /** The Bot Connector calls on one conversation. */
  callsTo(conversationId: string): ConnectorCall[] {
    return this.calls.filter((c) => c.conversationId === conversationId);
  }

  /** The `Authorization` header value the Bot Framework would send with `activity`, or undefined when unsigned. */
  async signActivity(activity: { serviceUrl?: string }, options: SignOptions = {}): Promise<string | undefined> {
    if (options.unsigned) return undefined;
    const now = Math.floor(Date.now() / 1000);
    const iat = options.expired ? now - 7200 : now - 10;
    const jwt = await new SignJWT({ serviceurl: options.serviceUrl ?? activity.serviceUrl ?? this.serviceUrl })
      .setProtectedHeader({ alg: 'RS256', kid: KID, typ: 'JWT' })
      .setIssuer(options.issuer ?? TOKEN_ISSUER)
      .setAudience(options.audience ?? this.appId)
      .setIssuedAt(iat)
      .setNotBefore(iat)
      .setExpirationTime(iat + 3600)
      .sign(options.unknownKey ? this.otherKey : this.key);
    return `Bearer ${jwt}`;
  }

  /** POSTs `activity` as JSON to `url`, signed per `options`. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
  async post(url: string, activity: { serviceUrl?: string }, options: SignOptions = {}): Promise<{ status: number; body: any }> {
    const authorization = await this.signActivity(activity, options);
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) };
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(activity) });
    const text = await res.text();
    return { status: res.status, body: text ? parseJson(text) : undefined };
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = new URL(req.url ?? '/', this.base).pathname;
    const token = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(path);
    if (req.method === 'POST' && token) return this.issueToken(decodeURIComponent(token[1]!), new URLSearchParams(raw), res);
    if (req.method === 'GET' && path === '/v1/.well-known/openidconfiguration') {
      return send(res, 200, { issuer: TOKEN_ISSUER, jwks_uri: `${this.base}/v1/.well-known/keys`, id_token_signing_alg_values_supported: ['RS256'] });
    }
    if (req.method === 'GET' && path === '/v1/.well-known/keys') return send(res, 200, { keys: [this.jwk] });
    const connector = /^\/teams\/v3\/conversations(?:\/([^/]+)\/activities(?:\/([^/]+))?)?\/?$/.exec(path);
    if (connector) return this.connector(req.method ?? 'GET', path, connector[1], connector[2], req.headers.authorization, raw, res);
    send(res, 404, { error: { code: 'NotFound', message: `Nothing at ${path}.` } });
  }

  private async issueToken(tenantId: string, form: URLSearchParams, res: ServerResponse): Promise<void> {
    const clientId = form.get('client_id') ?? undefined;
    const scope = form.get('scope') ?? undefined;
    const request: TokenRequest = { tenantId, clientId, scope, grantType: form.get('grant_type') ?? undefined, granted: false };
    this.tokenRequests.push(request);
    if (clientId !== this.appId || tenantId !== this.tenantId) {
      const description = `AADSTS700016: Application with identifier '${clientId}' was not found in the directory '${tenantId}'.`;
      return send(res, 400, { error: 'unauthorized_client', error_description: description, error_codes: [700016] });
    }
    if (this.refusing || form.get('client_secret') !== this.appPassword) {
      return send(res, 401, { error: 'invalid_client', error_description: 'AADSTS7000215: Invalid client secret provided.', error_codes: [7000215] });
    }
    const now = Math.floor(Date.now() / 1000);
    const accessToken = await new SignJWT({ appid: clientId, tid: tenantId, idtyp: 'app' })
      .setProtectedHeader({ alg: 'RS256', kid: KID, typ: 'JWT' })
      .setIssuer(`${this.base}/${tenantId}/v2.0`)
      .setAudience((scope ?? BOT_SCOPE).replace(/\/\.default$/, ''))
      .setSubject(randomUUID())
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .sign(this.key);
    this.issued.add(accessToken);
    request.granted = true;
    send(res, 200, { token_type: 'Bearer', expires_in: 3600, ext_expires_in: 3600, access_token: accessToken });
  }

  private connector(method: string, path: string, rawConversation: string | undefined, rawActivity: string | undefined, authorization: string | undefined, raw: string, res: ServerResponse): void {
    const call: ConnectorCall = { method, path, body: raw ? parseJson(raw) : undefined, status: 0 };
    if (rawConversation !== undefined) call.conversationId = decodeURIComponent(rawConversation);
    if (rawActivity !== undefined) call.activityId = decodeURIComponent(rawActivity);
    this.calls.push(call);
    const answer = (status: number, payload: unknown, headers: Record<string, string> = {}): void => {
      call.status = status;
      send(res, status, payload, headers);
    };
    const bearer = authorization?.startsWith('Bearer ') ? authorization.slice(7) : undefined;
    if (!bearer || !this.issued.has(bearer) || (decodeJwt(bearer).exp ?? 0) * 1000 < Date.now()) {
      return answer(401, { message: 'Authorization has been denied for this request.' });
    }
    const key = call.conversationId ?? (call.body?.members?.[0]?.id as string | undefined);
    const failure = key === undefined ? undefined : this.failures.get(key);
    if (failure) return answer(failure.status, failure.body, failure.headers);
    if (rawConversation === undefined) {
      if (method !== 'POST') return answer(405, { error: { code: 'MethodNotAllowed', message: `${method} not allowed.` } });
      call.conversationId = `a:conv-${this.nextConversation++}`;
      return answer(201, { id: call.conversationId });
    }
    if (method === 'DELETE') return answer(200, {});
    if (method === 'PUT') return answer(200, { id: call.activityId });
    if (method !== 'POST') return answer(405, { error: { code: 'MethodNotAllowed', message: `${method} not allowed.` } });
    call.created = `1${String(this.nextActivity++).padStart(12, '0')}`;
    answer(200, { id: call.created });
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}
