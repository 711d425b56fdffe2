import * as client from 'openid-client';
import { isLoopback } from '../../config/auth-schema.js';
import { ConfigError, type Config, type Secrets } from '../../config/load-config.js';
import { deriveCookieKeys, type CookieKeys } from './sealed-cookies.js';

/** A session key shorter than this is refused: AES-256 wants 32 bytes of secret to derive from. */
export const MIN_SESSION_SECRET_BYTES = 32;

/** Everything sign-in needs at request time, prepared and checked once at start-up. */
export interface SignIn {
  /** openid-client's view of the provider (discovered metadata) and of our client. */
  provider: client.Configuration;
  settings: NonNullable<Config['auth']['oidc']>;
  redirectUrl: string;
  /** The origin browsers use (`server.public_url`): cookie-authenticated writes must come from it. */
  publicOrigin: string;
  /** Cookies carry `Secure` when browsers reach expertq over https. */
  secureCookies: boolean;
  /** What the sign-in button says: "Sign in with <label>". */
  label: string;
  keys: CookieKeys;
}

/**
 * Checks the sign-in settings and discovers the provider, failing start-up with one line per problem:
 * a secret variable unset, a session key too short, a provider that cannot be reached or is not an
 * OpenID provider. Nothing starts half-configured. Null without `auth.oidc`.
 */
export async function prepareSignIn(config: Config, secrets: Secrets, options: { timeoutSeconds?: number } = {}): Promise<SignIn | null> {
  const settings = config.auth.oidc;
  if (!settings) return null;
  const secretEnv = config.auth.session_secret_env!;
  if (!secrets.sessionSecret) throw new ConfigError(`The environment variable ${secretEnv} (auth.session_secret_env) is not set or empty; set it to a random key of at least ${MIN_SESSION_SECRET_BYTES} bytes (openssl rand -base64 48).`);
  const bytes = Buffer.byteLength(secrets.sessionSecret, 'utf8');
  if (bytes < MIN_SESSION_SECRET_BYTES) throw new ConfigError(`The environment variable ${secretEnv} (auth.session_secret_env) holds ${bytes} bytes; a session key needs at least ${MIN_SESSION_SECRET_BYTES} (openssl rand -base64 48).`);
  if (!secrets.oidcClientSecret) throw new ConfigError(`The environment variable ${settings.client_secret_env} (auth.oidc.client_secret_env) is not set or empty; set it to the client secret the identity provider issued for "${settings.client_id}".`);

  const issuer = new URL(settings.issuer);
  const publicUrl = new URL(config.server.public_url!);
  let provider: client.Configuration;
  try {
    provider = await client.discovery(issuer, settings.client_id, secrets.oidcClientSecret, client.ClientSecretBasic(secrets.oidcClientSecret), {
      timeout: options.timeoutSeconds ?? 10,
      ...(isLoopback(issuer) && issuer.protocol === 'http:' ? { execute: [client.allowInsecureRequests] } : {}),
    });
  } catch (error) {
    throw new ConfigError(discoveryProblem(settings.issuer, error));
  }
  return {
    provider,
    settings,
    redirectUrl: settings.redirect_url ?? new URL('/auth/callback', publicUrl).href,
    publicOrigin: publicUrl.origin,
    secureCookies: publicUrl.protocol === 'https:',
    label: settings.label ?? issuer.hostname,
    keys: deriveCookieKeys(secrets.sessionSecret),
  };
}

/** Why discovery failed, in one line: unreachable (network) or reachable but not an OpenID provider. */
function discoveryProblem(issuer: string, error: unknown): string {
  const where = `auth.oidc.issuer ${issuer}`;
  const e = error as Error & { code?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TypeError' || e.name === 'AbortError' || e.name === 'TimeoutError') {
    const reason = e.cause?.code ?? e.cause?.message ?? e.message;
    return `${where}: the identity provider cannot be reached (${reason}); check the URL and that this host can reach it.`;
  }
  return `${where} is not an OpenID provider: its discovery document (/.well-known/openid-configuration) ${e.code === 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED' ? 'names another issuer' : `was refused (${e.message})`}.`;
}
