import { spawnSync } from 'node:child_process';
import { describe, it } from 'vitest';

/**
 * Prometheus's own checker, from Debian's `prometheus` package (`PROMTOOL` names another binary). Without it the test that uses it
 * skips with a hint, except with CI=true, where a missing promtool fails the run.
 */
export const PROMTOOL = process.env.PROMTOOL ?? 'promtool';
const IN_CI = process.env.CI === 'true';
export const HAVE_PROMTOOL = spawnSync(PROMTOOL, ['--version'], { stdio: 'ignore' }).status === 0;

if (!HAVE_PROMTOOL && !IN_CI) {
  console.warn(`Skipping the promtool check of /metrics: ${PROMTOOL} is missing. Install it with: apt-get install -y prometheus (as root).`);
}

// With CI=true a missing promtool is a failure, not a skip. (Registered only then, so a run with
// promtool present reports no skipped test.)
if (!HAVE_PROMTOOL && IN_CI) {
  describe('promtool', () => {
    it('promtool is installed (CI)', () => {
      throw new Error(`${PROMTOOL} is missing: CI must install it (apt-get install -y prometheus) before npm test.`);
    });
  });
}

/** What `promtool check metrics` says of an exposition (empty when it has nothing to say), and its exit status. */
export function checkMetrics(text: string): { status: number | null; problems: string } {
  const run = spawnSync(PROMTOOL, ['check', 'metrics'], { input: text, encoding: 'utf8' });
  return { status: run.status, problems: `${run.stdout}${run.stderr}`.trim() };
}
