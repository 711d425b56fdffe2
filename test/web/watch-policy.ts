import type { Page } from 'playwright-core';

/**
 * Records every CSP violation the page reports and every console error, from the first byte of every
 * document the page loads (signing in navigates). The watcher is added through the DevTools protocol,
 * so the policy under test does not block it.
 */
export async function watchPolicy(page: Page): Promise<{ violations: string[]; consoleErrors: string[] }> {
  const violations: string[] = [];
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    // Before the token is typed the UI asks the API who it is and is told 401: that is the sign-in prompt.
    if (message.type() === 'error' && !/status of 401/.test(message.text())) consoleErrors.push(message.text());
  });
  await page.exposeFunction('reportViolation', (text: string) => violations.push(text));
  // A string: the test's TypeScript has no DOM types.
  await page.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (e) => {
      window.reportViolation(e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') + ' at ' + e.sourceFile + ':' + e.lineNumber);
    });`,
  });
  return { violations, consoleErrors };
}
