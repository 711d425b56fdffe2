import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, ROOT, serveWorkspace, TEST_TOKEN, type ServerProcess, type Workspace } from './cli.js';

/**
 * What the browser tests share: Debian's chromium driven by playwright-core (never a downloaded
 * browser), an API client for the server under test, and sign-in. Without chromium the tests skip
 * with a hint, except with CI=true, where a missing browser fails the run.
 */
export const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ARTIFACTS = join(ROOT, 'test-artifacts');
const IN_CI = process.env.CI === 'true';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
export const TIMEOUT = 120_000;

if (!HAVE_CHROMIUM && !IN_CI) {
  console.warn(`Skipping the browser tests: ${CHROMIUM} is missing. Install it with: apt-get install -y chromium (as root).`);
}

// With CI=true a missing browser is a failure, not a skip. (Registered only then, so a run with the
// browser present reports no skipped test.)
if (!HAVE_CHROMIUM && IN_CI) {
  describe('browser', () => {
    it('chromium is installed (CI)', () => {
      throw new Error(`${CHROMIUM} is missing: CI must install it (apt-get install -y chromium) before npm test.`);
    });
  });
}

export interface Proposed {
  requestId: string;
  proposalId: string;
  question: string;
}

/** A client for the server's HTTP API with the test token. */
export function apiFor(server: ServerProcess, token: string | null = TEST_TOKEN) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
  return async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const res = await fetch(`${server.url}/api/v1${path}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
}

/** Submits a question as a consumer and answers it as the expert it went to: one pending proposal. */
export async function propose(
  api: ReturnType<typeof apiFor>,
  question: string,
  { topic = 'billing', because = 'the invoice total does not match the ledger', consumer = 'billing-bot', answer = 'Thirty days from the invoice date.' } = {},
): Promise<Proposed> {
  const submitted = await api('POST', '/requests', {
    consumer_id: consumer,
    topic,
    question,
    context: { asked_because: because },
    // Many asks to a few experts in one test: lift the per-expert caps for these requests only.
    routing_policy: { max_open_asks_per_expert: 100, max_asks_per_expert_per_day: 100 },
  });
  expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
  const requestId: string = submitted.body.request_id;
  const request = await api('GET', `/requests/${requestId}`);
  const reply = await api('POST', '/replies', { expert_id: request.body.asks[0].expert_id, text: answer, request_id: requestId });
  expect(reply.body.outcome).toBe('proposed');
  return { requestId, proposalId: reply.body.proposal_id, question };
}

/** A browser with a fresh profile (its own user-data dir) for each test: no token or name carried over. */
export async function openBrowser(viewport = { width: 1280, height: 900 }): Promise<{ context: BrowserContext; page: Page; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'expertq-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: ARGS, headless: true, viewport });
  context.setDefaultTimeout(15_000);
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  return {
    context,
    page,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
      expect(errors, 'uncaught errors in the page').toEqual([]);
    },
  };
}

export async function signIn(page: Page, url: string, token = TEST_TOKEN): Promise<void> {
  await page.goto(url);
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

export const card = (page: Page, question: string) => page.locator('article.proposal', { has: page.getByRole('heading', { name: question, exact: true }) });

export function screenshotPath(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, name);
}


/**
 * One served workspace per describe block and a fresh browser per test: registers the hooks that
 * start and stop them. `prepare` may edit the workspace (config, .env) before the server starts.
 */
export function useBrowserServer(prepare?: (ws: Workspace) => void | Promise<void>) {
  let ws: Workspace | null = null;
  let server: ServerProcess | null = null;
  let browser: Awaited<ReturnType<typeof openBrowser>> | null = null;
  beforeAll(async () => {
    ws = await makeWorkspace();
    await prepare?.(ws);
    server = await serveWorkspace(ws);
  });
  afterAll(async () => {
    await server?.stop();
    ws?.remove();
  });
  afterEach(async () => {
    await browser?.close();
    browser = null;
  });
  return {
    get server(): ServerProcess {
      return server!;
    },
    api: (token?: string | null) => apiFor(server!, token),
    /** Stops the server (the page stays open), for what the UI shows while it is gone. */
    async stopServer(): Promise<void> {
      await server?.stop();
    },
    /** Starts it again on the same workspace (same port unless taken meanwhile). */
    async startServer(): Promise<void> {
      server = await serveWorkspace(ws!);
    },
    /** A new browser page (closed after the test). */
    async page(viewport?: { width: number; height: number }): Promise<Page> {
      browser = await openBrowser(viewport);
      return browser.page;
    },
  };
}
