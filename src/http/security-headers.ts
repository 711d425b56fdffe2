import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';
import type { SignIn } from './sign-in/prepare-sign-in.js';

/**
 * The browser security headers on every response (helmet's). The policy allows no inline
 * script or style and no eval, so an injected `<script>` or `style=""` does nothing; the page cannot
 * be framed (clickjacking on the approve buttons); no URL leaks in `Referer`. `img-src data:` is the
 * page's empty favicon. Sign-in's form posts may end at the identity provider, so its origin joins
 * `form-action`. HSTS and upgrading requests only make sense when browsers come over https.
 */
export function securityHeaders(options: { publicUrl?: string | undefined; signIn?: SignIn | null }): HelmetOptions {
  const https = options.publicUrl !== undefined && new URL(options.publicUrl).protocol === 'https:';
  const provider = options.signIn ? identityProviderOrigin(options.signIn) : null;
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        'default-src': ["'self'"],
        'script-src': ["'self'"],
        'script-src-attr': ["'none'"],
        'style-src': ["'self'"],
        'img-src': ["'self'", 'data:'],
        'font-src': ["'self'"],
        'object-src': ["'none'"],
        'base-uri': ["'none'"],
        'frame-ancestors': ["'none'"],
        'form-action': ["'self'", ...(provider ? [provider] : [])],
        ...(https ? { 'upgrade-insecure-requests': [] } : {}),
      },
    },
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: https,
  };
}

/** Where the sign-in redirect sends the browser: the provider's authorization endpoint, else its issuer. */
function identityProviderOrigin(signIn: SignIn): string {
  const metadata = signIn.provider.serverMetadata();
  return new URL(metadata.authorization_endpoint ?? metadata.issuer).origin;
}

/**
 * The headers helmet sets for `securityHeaders(options)`, worked out once: they are the same on every
 * response. (`@fastify/helmet` built helmet's middleware, parsing the whole policy, on every request:
 * a sixth more server CPU per submit on PostgreSQL.) Helmet still writes every value.
 */
export function securityHeaderValues(options: { publicUrl?: string | undefined; signIn?: SignIn | null }): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  let done = false;
  helmet(securityHeaders(options))({} as IncomingMessage, recorder as unknown as ServerResponse, () => (done = true));
  if (!done) throw new Error('helmet did not finish setting the security headers');
  return headers;
}
