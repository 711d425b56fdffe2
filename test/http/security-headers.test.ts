import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../support/build-test-app.js';
import { OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, startTestProvider } from '../support/oidc-provider.js';

let t: TestApp;
afterEach(async () => t?.close());

/** The CSP's directives by name, for reading one without caring about their order. */
function directives(header: string | string[] | number | undefined): Record<string, string> {
  return Object.fromEntries(String(header).split(';').map((d) => d.trim()).filter(Boolean).map((d) => {
    const [name, ...values] = d.split(/\s+/);
    return [name!, values.join(' ')];
  }));
}

describe('browser security headers', () => {
  it('the page, the bundle, API answers, refusals and 404s all carry the policy', async () => {
    t = await buildTestApp({ token: 'admin-token-1' });
    const answers = await Promise.all([
      t.app.inject({ method: 'GET', url: '/' }),
      t.app.inject({ method: 'GET', url: '/assets/app.js' }),
      t.app.inject({ method: 'GET', url: '/api/v1/experts', headers: { authorization: 'Bearer admin-token-1' } }),
      t.app.inject({ method: 'GET', url: '/api/v1/experts' }),
      t.app.inject({ method: 'GET', url: '/no/such/page' }),
      t.app.inject({ method: 'GET', url: '/healthz' }),
    ]);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 401, 404, 200]);
    for (const res of answers) {
      const csp = directives(res.headers['content-security-policy']);
      expect(csp, res.raw.req.url).toMatchObject({
        'default-src': "'self'",
        'script-src': "'self'",
        'style-src': "'self'",
        'frame-ancestors': "'none'",
        'object-src': "'none'",
        'base-uri': "'none'",
        'form-action': "'self'",
      });
      expect(String(res.headers['content-security-policy'])).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['x-frame-options']).toBe('DENY');
      // Browsers reach this server over plain http: no HSTS, no upgrading of requests.
      expect(res.headers['strict-transport-security']).toBeUndefined();
      expect(csp['upgrade-insecure-requests']).toBeUndefined();
    }
  });

  it('a foreign Host is refused with the headers too', async () => {
    t = await buildTestApp();
    const res = await t.app.inject({ method: 'GET', url: '/', headers: { host: 'attacker.example.com' } });
    expect(res.statusCode).toBe(403);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(directives(res.headers['content-security-policy'])['frame-ancestors']).toBe("'none'");
  });

  it('Strict-Transport-Security when server.public_url is https', async () => {
    t = await buildTestApp({ config: { server: { public_url: 'https://expertq.example.com' } } });
    const res = await t.app.inject({ method: 'GET', url: '/' });
    expect(res.headers['strict-transport-security']).toMatch(/^max-age=\d{7,}/);
    expect(directives(res.headers['content-security-policy'])).toHaveProperty('upgrade-insecure-requests');
  });

  it('with sign-in configured, forms may also end at the identity provider', async () => {
    const provider = await startTestProvider({ rita: { email: 'rita@acme.test', groups: ['expertq-reviewers'] } }, 'http://expertq.test/auth/callback');
    try {
      t = await buildTestApp({
        config: {
          server: { public_url: 'http://expertq.test' },
          auth: { session_secret_env: 'EXPERTQ_SESSION_SECRET', oidc: { issuer: provider.issuer, client_id: OIDC_CLIENT_ID, client_secret_env: 'OIDC_CLIENT_SECRET', reviewers: ['expertq-reviewers'] } },
        },
        env: { EXPERTQ_SESSION_SECRET: 'a-session-key-of-more-than-32-bytes-for-tests', OIDC_CLIENT_SECRET },
      });
      const res = await t.app.inject({ method: 'GET', url: '/', headers: { host: 'expertq.test' } });
      expect(res.statusCode).toBe(200);
      expect(directives(res.headers['content-security-policy'])['form-action']).toBe(`'self' ${new URL(provider.issuer).origin}`);
    } finally {
      await provider.close();
    }
  });
});
