import { describe, it } from 'vitest';
import { DOVECOT, HAVE_DOVECOT } from './dovecot-server.mjs';

/**
 * The email tests' IMAP server: Debian's Dovecot (`apt-get install -y dovecot-imapd`), started by the
 * tests in a fresh temporary directory (dovecot-server.mjs, which the bench uses too). Without Dovecot
 * the tests that use it skip with a hint, except with CI=true, where a missing Dovecot fails the run.
 */
export { DOVECOT, HAVE_DOVECOT, startDovecot, type Dovecot, type DovecotOptions } from './dovecot-server.mjs';

if (!HAVE_DOVECOT && process.env.CI !== 'true') {
  console.warn(`Skipping the IMAP tests: ${DOVECOT} is missing. Install it with: apt-get install -y dovecot-imapd (as root).`);
}

// With CI=true a missing Dovecot is a failure, not a skip. (Registered only then, so a run with
// Dovecot present reports no skipped test.)
if (!HAVE_DOVECOT && process.env.CI === 'true') {
  describe('dovecot', () => {
    it('dovecot is installed (CI)', () => {
      throw new Error(`${DOVECOT} is missing: CI must install it (apt-get install -y dovecot-imapd) before npm test.`);
    });
  });
}
