import { describe, expect, it } from 'vitest';
import { waitingMessage } from '../../src/mcp/describe.js';
import type { RequestView } from '../../src/service/requests/views.js';

describe('what a waiting agent is told', () => {
  it('says when the expert starts work, on their clock', () => {
    const now = Date.parse('2026-11-24T12:00:00Z');
    const view = { asked: [], waiting: { why: 'working_hours', expert_id: 'mei', until: '2026-11-25T01:00:00.000Z', timezone: 'Asia/Kathmandu' }, gives_up_at: null } as unknown as RequestView;
    expect(waitingMessage(view, now)).toBe('mei starts work at 06:45 Asia/Kathmandu on Wed 25 Nov, in 13 h.');
  });

  it.each([
    ['away', 'mei is away until 06:45 Asia/Kathmandu on Wed 25 Nov, in 13 h.'],
    ['dnd', 'mei has do-not-disturb on until 06:45 Asia/Kathmandu on Wed 25 Nov, in 13 h.'],
  ])('says why the expert cannot be asked now (%s) and until when', (why, said) => {
    const now = Date.parse('2026-11-24T12:00:00Z');
    const view = { asked: [], waiting: { why, expert_id: 'mei', until: '2026-11-25T01:00:00.000Z', timezone: 'Asia/Kathmandu' }, gives_up_at: null } as unknown as RequestView;
    expect(waitingMessage(view, now)).toBe(said);
  });
});
