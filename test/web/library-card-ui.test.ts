import { describe, expect, it } from 'vitest';
import { card, HAVE_CHROMIUM, signIn, TIMEOUT, useBrowserServer } from '../support/browser.js';

const DAY = 86_400_000;

/** The review card of an answer that comes from the library: reused at submit, or confirmed with `same`. */
describe.runIf(HAVE_CHROMIUM)('review UI: answers from the library', { timeout: TIMEOUT }, () => {
  const served = useBrowserServer();
  const api = (method: string, path: string, body?: unknown) => served.api()(method, path, body);

  async function submit(question: string): Promise<string> {
    const submitted = await api('POST', '/requests', { consumer_id: 'billing-bot', topic: 'billing', question, context: { asked_because: 'a customer asked' } });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    return submitted.body.request_id as string;
  }

  it('a reused answer says it is from the library, who answered, when verified, the score and the original question; send back needs no note', async () => {
    const curated = { topic: 'billing', question: 'How long is the refund window for annual plans?', answer: 'Thirty days from the invoice.', expert_id: 'dana', verified_at: new Date(Date.now() - 10 * DAY).toISOString() };
    expect((await api('POST', '/answers', curated)).status).toBe(201);
    const question = 'What is the refund window for annual plans?';
    const requestId = await submit(question);
    expect((await api('GET', `/requests/${requestId}`)).body.status).toBe('proposed');

    const page = await served.page();
    await signIn(page, served.server.url);
    const c = card(page, question);
    const source = c.getByRole('region', { name: 'From the library' });
    await expect.poll(() => source.textContent()).toMatch(/From the library: answered by Dana Smith, verified \w{3} \d{1,2}, \d{4}, score 0\.80\. No expert was asked\./);
    expect(await source.textContent()).toContain('Originally answered' + curated.question);
    expect(await source.textContent()).toContain('Asked now' + question);

    await c.getByRole('button', { name: 'Send back…' }).click();
    await c.getByRole('button', { name: 'Send back', exact: true }).click();
    await page.getByLabel('Your name').fill('Pat Reviewer');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(async () => (await api('GET', `/requests/${requestId}`)).body.status).toBe('asked');
  });

  it('an expert’s `same` to an answer due for checking says it confirms a library answer', async () => {
    const verifiedAt = new Date(Date.now() - 200 * DAY).toISOString();
    const curated = { topic: 'billing', question: 'Do credit notes expire after a year?', answer: 'No, they never expire.', expert_id: 'dana', verified_at: verifiedAt };
    const entry = (await api('POST', '/answers', curated)).body;
    const question = 'Do credit notes expire after one year?';
    const requestId = await submit(question);
    const request = (await api('GET', `/requests/${requestId}`)).body;
    expect(request.status).toBe('asked');
    const reply = await api('POST', '/replies', { expert_id: request.asks[0].expert_id, text: 'Same', request_id: requestId });
    expect(reply.body.outcome).toBe('proposed');

    const page = await served.page();
    await signIn(page, served.server.url);
    const c = card(page, question);
    const source = c.getByRole('region', { name: 'Confirms a library answer' });
    await expect.poll(() => source.textContent()).toContain(`was shown the answer in the library (${entry.id}) and replied that it still holds`);
    expect(await c.locator('.answer-text').first().textContent()).toBe('No, they never expire.');
  });
});
