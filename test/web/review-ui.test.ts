import { describe, expect, it } from 'vitest';
import { card, HAVE_CHROMIUM, propose, signIn, TIMEOUT, useBrowserServer } from '../support/browser.js';

/** Reviewing beyond accept/reject in the browser: edit before accepting, send back, the history. */
describe.runIf(HAVE_CHROMIUM)('review UI: edit and send back', { timeout: TIMEOUT }, () => {
  const served = useBrowserServer();
  const api = (method: string, path: string, body?: unknown) => served.api()(method, path, body);

  async function signedIn() {
    const page = await served.page();
    await signIn(page, served.server.url);
    return page;
  }

  it('edits an answer: the button reads "Accept edited", Reset restores, and the edit is delivered with the original kept', async () => {
    const proposed = await propose(api, 'What is the late fee on invoices?', { answer: 'two percnt a month' });
    const page = await signedIn();
    const c = card(page, proposed.question);
    await c.getByRole('button', { name: 'Edit the answer before accepting' }).click();
    const box = c.getByLabel(/Answer to deliver/);
    await box.fill('Two percent a month.');
    expect(await c.getByRole('button', { name: /^Accept edited/ }).count()).toBe(1);
    await c.getByRole('button', { name: "Reset to the expert's answer" }).click();
    expect(await c.getByRole('button', { name: /^Accept edited/ }).count()).toBe(0);
    await c.getByRole('button', { name: 'Edit the answer before accepting' }).click();
    await c.getByLabel(/Answer to deliver/).fill('Two percent a month.');
    await c.getByRole('button', { name: /^Accept edited/ }).click();
    await page.getByLabel('Your name').fill('Pat Reviewer');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(async () => (await api('GET', `/proposals/${proposed.proposalId}`)).body.status).toBe('accepted');
    const stored = (await api('GET', `/proposals/${proposed.proposalId}`)).body;
    expect(stored).toMatchObject({ answer: 'Two percent a month.', original_answer: 'two percnt a month', provenance: { edited_by: 'Pat Reviewer' } });
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/Accepted \(edited\)/);
  });

  it('sends an answer back with required instructions; the next answer arrives as a new card with the history', async () => {
    const proposed = await propose(api, 'Which bank holidays pause the dunning run?', { answer: 'some of them' });
    const page = await signedIn();
    const c = card(page, proposed.question);
    await c.getByRole('button', { name: 'Send back…' }).click();
    await c.getByRole('button', { name: 'Send back', exact: true }).click();
    await expect.poll(() => c.getByRole('alert').textContent()).toMatch(/Say what the expert should change or add/);
    await c.getByLabel(/Instructions for/).fill('Name the holidays, please.');
    await c.getByRole('button', { name: 'Send back', exact: true }).click();
    await page.getByLabel('Your name').fill('Pat Reviewer');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(async () => (await api('GET', `/requests/${proposed.requestId}`)).body.status).toBe('asked');
    await expect.poll(() => card(page, proposed.question).count()).toBe(0);

    const request = (await api('GET', `/requests/${proposed.requestId}`)).body;
    const expert = request.asks.at(-1).expert_id as string;
    const reply = await api('POST', '/replies', { expert_id: expert, text: 'New Year and Christmas only.', request_id: proposed.requestId });
    expect(reply.body.outcome).toBe('proposed');
    const again = card(page, proposed.question);
    await expect.poll(() => again.count()).toBe(1);
    const history = again.getByRole('region', { name: 'Earlier answers sent back' });
    await expect.poll(() => history.textContent()).toMatch(/some of them.*Sent back by Pat Reviewer: Name the holidays, please\./s);
  });
});
