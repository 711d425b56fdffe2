import { describe, expect, it } from 'vitest';
import { waitingMessage } from '../../src/mcp/describe.js';
import type { RequestView } from '../../src/service/views.js';

describe('what a waiting agent is told', () => {
  it('says the expert is outside their working hours and when they start', () => {
    const now = Date.parse('2026-11-24T12:00:00Z');
    const view = { asked: [], waiting: { why: 'working_hours', expert_id: 'mei', until: '2026-11-25T01:00:00.000Z' }, gives_up_at: null } as unknown as RequestView;
    expect(waitingMessage(view, now)).toBe('mei is outside their working hours; the question is sent when they start at Wed 25 Nov 01:00 UTC (in 13 h).');
  });

  it.each([
    ['away', 'mei is away; the question is sent when they are back at Wed 25 Nov 01:00 UTC (in 13 h).'],
    ['dnd', 'mei has do-not-disturb on; the question is sent when it ends at Wed 25 Nov 01:00 UTC (in 13 h).'],
  ])('says why the expert cannot be asked now (%s) and until when', (why, said) => {
    const now = Date.parse('2026-11-24T12:00:00Z');
    const view = { asked: [], waiting: { why, expert_id: 'mei', until: '2026-11-25T01:00:00.000Z' }, gives_up_at: null } as unknown as RequestView;
    expect(waitingMessage(view, now)).toBe(said);
  });
});
