import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, CLI_TEST_TIMEOUT_MS, freePort, makeWorkspace, ROOT, startServe, TEST_TOKEN, type ServerProcess, type Workspace } from '../support/cli.js';

// docs/sign-in.md's "Try it with a local provider", as a reader does it: examples/oidc-provider.mjs,
// `expertq serve` with the page's `auth:` section added to the example configuration, and a browser
// that presses the buttons of the provider's sign-in page.
let provider: ChildProcess | null = null;
let ws: Workspace;
let server: ServerProcess;

/** The `auth:` section the page appends to service.yaml, pointed at this run's provider port. */
function documentedAuthSection(providerPort: number): string {
  const page = readFileSync(join(ROOT, 'docs', 'sign-in.md'), 'utf8');
  const heredoc = /cat >> service\.yaml <<'EOF'\n([\s\S]*?)\n\s*EOF\n/.exec(page)![1]!;
  const text = heredoc.split('\n').map((line) => line.replace(/^ {3}/, '')).join('\n');
  return `\n${text.replace('http://127.0.0.1:8780', `http://127.0.0.1:${providerPort}`)}\n`;
}

function startProvider(port: number, expertqUrl: string): Promise<void> {
  provider = spawn(process.execPath, [join(ROOT, 'examples', 'oidc-provider.mjs')], { env: { ...process.env, PORT: String(port), EXPERTQ_URL: expertqUrl }, cwd: ROOT });
  let out = '';
  return new Promise<void>((resolve, reject) => {
    provider!.stdout!.on('data', (d) => {
      out += String(d);
      if (out.includes('nina@acme.example')) resolve();
    });
    provider!.once('exit', (code) => reject(new Error(`the example provider exited ${code}: ${out}`)));
  });
}

beforeAll(async () => {
  ws = await makeWorkspace();
  const providerPort = await freePort();
  await startProvider(providerPort, ws.url);
  const doc = parseDocument(readFileSync(ws.configFile, 'utf8'));
  doc.setIn(['server', 'public_url'], ws.url);
  writeFileSync(ws.configFile, doc.toString() + documentedAuthSection(providerPort));
  const env = cleanEnv({ SERVICE_API_TOKEN: TEST_TOKEN, EXPERTQ_OIDC_SECRET: 'local-provider-secret', EXPERTQ_SESSION_SECRET: randomBytes(48).toString('base64') });
  server = await startServe(ws.configFile, env);
}, CLI_TEST_TIMEOUT_MS);
afterAll(async () => {
  await server?.stop();
  provider?.kill('SIGKILL');
  ws?.remove();
});

/** A browser's cookie jar (by name and path; both servers are on 127.0.0.1, and cookies ignore ports). */
class Browser {
  private jar = new Map<string, { name: string; value: string; path: string }>();
  private keep(line: string): void {
    const [pair, ...attributes] = line.split(/;\s*/);
    const name = pair!.slice(0, pair!.indexOf('='));
    const value = pair!.slice(pair!.indexOf('=') + 1);
    const path = attributes.find((a) => /^path=/i.test(a))?.slice(5) ?? '/';
    const expired = attributes.some((a) => (/^expires=/i.test(a) && Date.parse(a.slice(8)) < Date.now()) || /^max-age=0$/i.test(a));
    if (value === '' || expired) this.jar.delete(`${name} ${path}`);
    else this.jar.set(`${name} ${path}`, { name, value, path });
  }
  cookieFor(url: string): string {
    const path = new URL(url).pathname;
    return [...this.jar.values()].filter((c) => path === c.path || path.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`)).map((c) => `${c.name}=${c.value}`).join('; ');
  }
  /** Follows redirects from `url` (after an optional form post) to the page they end on. */
  async go(url: string, form?: Record<string, string>): Promise<{ url: string; status: number; html: string }> {
    let post = form ? new URLSearchParams(form) : undefined;
    for (let hop = 0; hop < 15; hop++) {
      const res = await fetch(url, {
        redirect: 'manual',
        ...(post ? { method: 'POST', body: post } : {}),
        headers: { cookie: this.cookieFor(url), ...(post ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      });
      for (const line of res.headers.getSetCookie()) this.keep(line);
      const location = res.headers.get('location');
      if (location) {
        url = new URL(location, url).href;
        post = undefined;
        continue;
      }
      const html = await res.text();
      // A page that submits itself (the provider ending the previous person's session there) is
      // posted on, as the browser's script does.
      const autoPost = html.includes('document.forms[0].submit()') ? /<form method="post" action="([^"]+)"/.exec(html) : null;
      if (!autoPost) return { url, status: res.status, html };
      url = new URL(autoPost[1]!, url).href;
      post = new URLSearchParams([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m): [string, string] => [m[1]!, m[2]!]));
    }
    throw new Error('more than 15 redirects');
  }
}

/** Presses "Sign in with the local provider", then the person's button on the provider's page: what /me says then. */
async function signIn(browser: Browser, person: string): Promise<Record<string, unknown>> {
  const page = await browser.go(`${ws.url}/auth/login`);
  expect(page.status, page.html).toBe(200);
  expect(page.html).toContain(`<button name="person" value="${person}">`);
  const action = /<form method="post" action="([^"]+)"/.exec(page.html)![1]!;
  const back = await browser.go(new URL(action, page.url).href, { person });
  expect(back.url).toBe(`${ws.url}/`);
  const me = await fetch(`${ws.url}/api/v1/me`, { headers: { cookie: browser.cookieFor(`${ws.url}/api/v1/me`) } });
  return (await me.json()) as Record<string, unknown>;
}

async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = { authorization: `Bearer ${TEST_TOKEN}` }) {
  const res = await fetch(`${ws.url}/api/v1${path}`, { method, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('the local OpenID provider of docs/sign-in.md (examples/oidc-provider.mjs)', () => {
  it('Rita signs in as a reviewer and her accept is recorded under her email', async () => {
    const asked = await api('POST', '/requests', { consumer_id: 'billing-bot', topic: 'billing', question: 'What is the grace period for disputed invoices?', context: { asked_because: 'the invoice total does not match the ledger' } });
    expect(asked.status).toBe(200);
    const reply = await api('POST', '/replies', { expert_id: 'dana', text: 'Thirty days from the invoice date.' });
    const browser = new Browser();
    expect(await signIn(browser, 'rita')).toMatchObject({ name: 'rita@acme.example', role: 'reviewer', via: 'session' });

    const url = `${ws.url}/api/v1/proposals/${String(reply.body.proposal_id)}/accept`;
    const accept = await fetch(url, { method: 'POST', headers: { cookie: browser.cookieFor(url), origin: ws.url, 'content-type': 'application/json' }, body: '{}' });
    expect(accept.status).toBe(200);
    const audit = await api('GET', `/audit?request_id=${String(asked.body.request_id)}`);
    expect(audit.body).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'decided', actor: 'reviewer:rita@acme.example' })]));
  }, CLI_TEST_TIMEOUT_MS);

  it('Omar is an admin and Nina has no role; one browser picks someone else at each sign-in', async () => {
    const browser = new Browser();
    expect(await signIn(browser, 'omar')).toMatchObject({ name: 'omar@acme.example', role: 'admin' });
    expect(await signIn(browser, 'nina')).toMatchObject({ name: 'nina@acme.example', role: 'none' });
    const queue = await fetch(`${ws.url}/api/v1/queue`, { headers: { cookie: browser.cookieFor(`${ws.url}/api/v1/queue`) } });
    expect(queue.status).toBe(403);
  }, CLI_TEST_TIMEOUT_MS);
});
