import type { Credential } from '../../src/http/auth.js';
import type { TestAppOptions } from './build-test-app.js';
import { OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, startTestProvider, type TestProvider } from './oidc-provider.js';

export type { TestProvider };

export const CONTRACT_PUBLIC_URL = 'http://expertq.test';

/** One token per role, so a test can call a route as each. */
export const ROLE_TOKENS = { admin: 'contract-admin', reviewer: 'contract-reviewer', consumer: 'contract-consumer' } as const;

/** The consumer token's name: it acts as this consumer. */
export const CONSUMER_NAME = 'billing-bot';

const credentials: Credential[] = [
  { name: 'rita', role: 'reviewer', token: ROLE_TOKENS.reviewer },
  { name: CONSUMER_NAME, role: 'consumer', token: ROLE_TOKENS.consumer },
];

/** A real OpenID provider the sign-in routes can discover (they exist only with one configured). */
export function startContractProvider(): Promise<TestProvider> {
  return startTestProvider({ rita: { email: 'rita@acme.test', groups: ['expertq-reviewers'] } }, `${CONTRACT_PUBLIC_URL}/auth/callback`);
}

/** The app with every surface on: an admin token, a reviewer and a consumer token, and sign-in. */
export function signInConfig(provider: TestProvider, adminToken: string = ROLE_TOKENS.admin): TestAppOptions {
  return {
    token: adminToken,
    credentials,
    config: {
      server: { public_url: CONTRACT_PUBLIC_URL, allow_private_webhooks: true },
      defaults: { max_open_asks_per_expert: 1000, max_asks_per_expert_per_day: 1000 },
      auth: {
        session_secret_env: 'EXPERTQ_SESSION_SECRET',
        oidc: { issuer: provider.issuer, client_id: OIDC_CLIENT_ID, client_secret_env: 'OIDC_CLIENT_SECRET', scopes: ['openid', 'email', 'groups'], reviewers: ['expertq-reviewers'], admins: ['expertq-admins'] },
      },
    },
    env: { EXPERTQ_SESSION_SECRET: 'a-session-key-of-more-than-32-bytes-for-tests', OIDC_CLIENT_SECRET },
  };
}
