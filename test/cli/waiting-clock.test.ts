import { readFileSync, writeFileSync } from 'node:fs';
import { DateTime } from 'luxon';
import { parseDocument } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliFor, CLI_TEST_TIMEOUT_MS, makeWorkspace, serveWorkspace, type ServerProcess, type Workspace } from '../support/cli.js';

/**
 * An expert in Kathmandu whose working day has not begun, in an organisation whose clock is in the
 * Marquesas (UTC-9:30): `ask` and `request` say when the expert starts work on the expert's own clock,
 * named by its zone, with how long that is from now.
 */
const KTM = 'Asia/Kathmandu';
let ws: Workspace;
let server: ServerProcess;
let start: DateTime;

beforeAll(async () => {
  ws = await makeWorkspace();
  // The expert's day starts five hours from now (a one-minute working day, every day of the week).
  start = DateTime.now().setZone(KTM).startOf('minute').plus({ hours: 5, minutes: 1 });
  if (start.hour === 23 && start.minute === 59) start = start.plus({ minutes: 2 });
  const doc = parseDocument(readFileSync(ws.configFile, 'utf8'));
  doc.setIn(['org', 'timezone'], 'Pacific/Marquesas');
  doc.deleteIn(['topics']);
  doc.setIn(['experts'], [{ id: 'lee', name: 'Lee Chen', topics: ['billing'], timezone: KTM, working_hours: `Mon-Sun ${start.toFormat('HH:mm')}-${start.plus({ minutes: 1 }).toFormat('HH:mm')}` }]);
  writeFileSync(ws.configFile, doc.toString());
  server = await serveWorkspace(ws);
}, CLI_TEST_TIMEOUT_MS);

afterAll(async () => {
  await server?.stop();
  ws?.remove();
});

describe('a request waiting for an expert\'s working day', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('is said on the expert\'s clock, with the zone name and how long from now', async () => {
    const cli = cliFor(ws);
    const asked = await cli('ask', 'Is the grace period in business days?', '--topic', 'billing', '--because', 'stuck', '--expert', 'lee');
    expect(asked.code, asked.stderr).toBe(0);
    const requestId = asked.stdout.match(/^(req_\S+) queued$/m)![1]!;
    const day = start.hasSame(DateTime.now().setZone(KTM), 'day') ? 'today' : `on ${start.toFormat('ccc d LLL')}`;
    const said = `Waiting: Lee Chen starts work at ${start.toFormat('HH:mm')} Asia/Kathmandu ${day}, in 5 h`;
    expect(asked.stdout).toContain(`  ${said}\n`);
    const shown = await cli('request', requestId);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`  ${said}\n`);
    expect(shown.stdout).not.toMatch(/Waiting:.*(GMT|Marquesas)/);
  });
});
