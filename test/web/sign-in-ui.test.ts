import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { card, HAVE_CHROMIUM, propose, screenshotPath, TIMEOUT, useBrowserServer } from '../support/browser.js';
import { TEST_TOKEN } from '../support/cli.js';
import { OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, startTestProvider, type TestProvider } from '../support/oidc-provider.js';

const USERS = {
  rita: { email: 'rita@acme.test', groups: ['staff', 'expertq-reviewers'] },
  olly: { email: 'olly@acme.test', groups: ['staff', 'sales'] },
};

/**
 * The approval UI with sign-in through a real OpenID provider (in this process) in Chromium: the
 * reviewer clicks "Sign in with …", the provider signs them in, and the UI decides as them.
 */
describe.runIf(HAVE_CHROMIUM)('approval UI with OpenID Connect sign-in', { timeout: TIMEOUT }, () => {
  let provider: TestProvider | null = null;
  const served = useBrowserServer(async (ws) => {
    provider = await startTestProvider(USERS, `${ws.url}/auth/callback`);
    const doc = parseDocument(readFileSync(ws.configFile, 'utf8'));
    doc.setIn(['server', 'public_url'], ws.url);
    doc.setIn(['auth'], {
      session_secret_env: 'EXPERTQ_SESSION_SECRET',
      oidc: {
        issuer: provider.issuer, client_id: OIDC_CLIENT_ID, client_secret_env: 'OIDC_CLIENT_SECRET', label: 'Acme SSO',
        scopes: ['openid', 'email', 'groups'], reviewers: ['expertq-reviewers'], admins: ['expertq-admins'],
      },
    });
    writeFileSync(ws.configFile, doc.toString());
    writeFileSync(join(ws.dir, '.env'), `EXPERTQ_SESSION_SECRET=a-session-key-of-more-than-32-bytes-for-tests\nOIDC_CLIENT_SECRET=${OIDC_CLIENT_SECRET}\n`);
  });
  afterAll(async () => provider?.close());

  it('a reviewer signs in with the provider, accepts without a name prompt, and the audit records their verified email', async () => {
    const api = served.api();
    const proposed = await propose(api, 'Which VAT rate applies to e-books?');
    provider!.signInAs('rita');
    const page = await served.page();
    await page.goto(served.server.url);

    // Sign-in first; the token prompt is only the secondary choice.
    expect(await page.getByLabel('API token').count()).toBe(0);
    await expect.poll(() => page.getByRole('button', { name: 'Use an API token instead' }).count()).toBe(1);
    await page.screenshot({ path: screenshotPath('sign-in-choice.png') });
    await page.getByRole('link', { name: 'Sign in with Acme SSO' }).click();

    await expect.poll(() => page.getByRole('banner').textContent()).toMatch(/Signed in as rita@acme\.test \(reviewer\)/);
    await page.screenshot({ path: screenshotPath('signed-in-queue.png') });
    expect(new URL(page.url()).origin).toBe(served.server.url);
    await card(page, proposed.question).getByRole('button', { name: 'Accept', exact: true }).click();
    await expect.poll(async () => (await api('GET', `/proposals/${proposed.proposalId}`)).body.status).toBe('accepted');
    expect(await page.getByRole('dialog').count()).toBe(0);
    const audit = (await api('GET', `/audit?request_id=${proposed.requestId}`)).body as Array<{ type: string; actor: string }>;
    expect(audit.find((row) => row.type === 'decided')?.actor).toBe('reviewer:rita@acme.test');
    // The cookie carried the decision: no token was ever stored in the page.
    expect(await page.evaluate('sessionStorage.getItem("expertq.token")')).toBeNull();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.getByRole('link', { name: 'Sign in with Acme SSO' }).count()).toBe(1);
    expect(await page.evaluate(async () => (await (await fetch('/auth/session')).json() as { session: unknown }).session)).toBeNull();
  });

  it('a person outside the reviewer groups is signed in and told why they cannot decide', async () => {
    await propose(served.api(), 'Is the staging database backed up nightly?', { topic: 'kubernetes', consumer: 'deploy-agent' });
    provider!.signInAs('olly');
    const page = await served.page();
    await page.goto(served.server.url);
    await page.getByRole('link', { name: 'Sign in with Acme SSO' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'You cannot review here' }).count()).toBe(1);
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/signed in as olly@acme\.test, but you are in none of the groups that may review/);
    expect(await page.getByRole('article').count()).toBe(0);
    await page.screenshot({ path: screenshotPath('signed-in-no-role.png') });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.getByRole('link', { name: 'Sign in with Acme SSO' }).count()).toBe(1);
  });

  it('a session that ends while the page is open brings back the sign-in screen, saying why', async () => {
    const proposed = await propose(served.api(), 'Do refunds go back to the original card?');
    provider!.signInAs('rita');
    const page = await served.page();
    await page.goto(served.server.url);
    await page.getByRole('link', { name: 'Sign in with Acme SSO' }).click();
    await card(page, proposed.question).waitFor();
    // Signed out elsewhere (another tab): the cookie is gone, this page does not know yet.
    expect(await page.evaluate(async () => (await fetch('/auth/logout', { method: 'POST' })).status)).toBe(204);
    await card(page, proposed.question).getByRole('button', { name: 'Accept', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/Your sign-in has ended/);
    expect(await page.getByRole('link', { name: 'Sign in with Acme SSO' }).count()).toBe(1);
    expect((await served.api()('GET', `/proposals/${proposed.proposalId}`)).body.status).toBe('pending');
  });

  it('an API token still works as the secondary choice', async () => {
    const page = await served.page();
    await page.goto(served.server.url);
    await page.getByRole('button', { name: 'Use an API token instead' }).click();
    await page.getByLabel('API token').fill(TEST_TOKEN);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Review queue', exact: true }).waitFor();
  });
});
