import { describe, expect, it } from 'vitest';
import { clockTime, waitingText, waitNote } from '../../web/src/waiting-text.js';

const NOW = Date.parse('2026-11-25T10:30:00Z'); // a Wednesday
const names: Record<string, string> = { dana: 'Dana Smith', sam: 'Sam Okafor' };
const name = (id: string) => names[id] ?? id;
const utc = { now: NOW, name, timeZone: 'UTC' };
const open = { status: 'queued' as const, gives_up_at: null };

describe('clockTime: a time of day, with the date when it is not today', () => {
  it.each([
    ['2026-11-25T14:00:00Z', 'UTC', '14:00 today'],
    ['2026-11-26T07:00:00Z', 'UTC', '07:00 Thu 26 Nov'],
    ['2026-11-24T23:59:00Z', 'UTC', '23:59 Tue 24 Nov'],
    ['2027-01-05T09:15:00Z', 'UTC', '09:15 Tue 5 Jan 2027'],
    // Today is the viewer's today: 23:30 UTC is already Thursday in Berlin.
    ['2026-11-25T23:30:00Z', 'Europe/Berlin', '00:30 Thu 26 Nov'],
    ['2026-11-25T23:30:00Z', 'America/New_York', '18:30 today'],
  ])('%s in %s reads %s', (iso, timeZone, text) => {
    expect(clockTime(iso, NOW, timeZone)).toBe(text);
  });
});

describe('waitingText: why an open request waits, and until when', () => {
  it.each<[string, Parameters<typeof waitingText>[0], string | null]>([
    ['the question is being prepared', { ...open, waiting: { why: 'llm' } }, 'Preparing the question for the expert, or checking it against earlier answers; nobody is asked yet'],
    ['quiet hours, end known', { ...open, waiting: { why: 'quiet_hours', until: '2026-11-26T07:00:00Z', timezone: 'UTC' } }, 'Quiet hours end at 07:00 UTC on Thu 26 Nov, in 21 h; then the expert is asked'],
    ['quiet hours, end unknown', { ...open, waiting: { why: 'quiet_hours' } }, 'Quiet hours: nobody is asked until they end'],
    ['held at a daily cap of one expert', { ...open, waiting: { why: 'cap', expert_id: 'dana', until: '2026-11-26T00:00:00Z', timezone: 'UTC' } },
      'Dana Smith is at their daily limit; the question goes out at 00:00 UTC on Thu 26 Nov, in 14 h'],
    ['held at a daily cap', { ...open, waiting: { why: 'cap', until: '2026-11-26T00:00:00Z', timezone: 'UTC' } },
      'Every expert for this topic is at their daily limit; the question goes out at 00:00 UTC on Thu 26 Nov, in 14 h'],
    ['held at the open-asks cap', { ...open, waiting: { why: 'cap' } },
      'Every expert for this topic is at their limit; the question goes out when one of them answers an open question'],
    ['an expert answered', { status: 'proposed', gives_up_at: null, waiting: { why: 'review' } }, 'An expert answered; a reviewer must accept, reject or send it back'],
    [
      'Dana Smith answered',
      { status: 'proposed', gives_up_at: null, waiting: { why: 'review' }, proposal: { provenance: { expert_name: 'Dana Smith' } } },
      'Dana Smith answered; a reviewer must accept, reject or send it back',
    ],
    [
      'an answer reused from the library',
      { status: 'proposed', gives_up_at: null, waiting: { why: 'review' }, proposal: { provenance: { expert_name: 'Dana Smith', reused_from: 'ans_1' } } },
      'The library has an earlier answer from Dana Smith (no expert was asked); a reviewer must accept, reject or send it back',
    ],
    ['working hours, on the expert’s clock whatever the viewer’s', { ...open, waiting: { why: 'working_hours', expert_id: 'sam', until: '2026-11-25T13:00:00Z', timezone: 'Asia/Singapore' } },
      'Sam Okafor starts work at 21:00 Asia/Singapore today, in 2.5 h'],
    ['away', { ...open, waiting: { why: 'away', expert_id: 'sam', until: '2026-11-30T09:00:00Z', timezone: 'Europe/Berlin' } }, 'Sam Okafor is away until 10:00 Europe/Berlin on Mon 30 Nov, in 5 days'],
    ['do not disturb', { ...open, waiting: { why: 'dnd', expert_id: 'sam' } }, 'Sam Okafor has do-not-disturb on'],
    ['an unnamed expert', { ...open, waiting: { why: 'away', expert_id: 'zoe' } }, 'zoe is away'],
    ['an ask is out', { status: 'asked', gives_up_at: null, waiting: null, asked: [{ expert_id: 'dana', expert_name: 'Dana Smith', sent_at: '2026-11-25T09:02:00Z' }] },
      'Asked Dana Smith at 09:02 today; waiting for the answer'],
    ['two asks are out', { status: 'escalated', gives_up_at: null, waiting: null, asked: [
      { expert_id: 'dana', expert_name: 'Dana Smith', sent_at: '2026-11-24T09:02:00Z' },
      { expert_id: 'sam', expert_name: 'Sam Okafor', sent_at: null },
    ] }, 'Asked Dana Smith and Sam Okafor; waiting for the answer'],
    ['closed', { status: 'accepted', gives_up_at: null, waiting: null }, null],
    ['a server without the fields', { status: 'asked' }, null],
  ])('%s', (_, request, text) => {
    expect(waitingText(request, utc).waiting).toBe(text);
  });

  it('says when an open request gives up, and nothing once it cannot time out', () => {
    expect(waitingText({ ...open, gives_up_at: '2026-11-25T14:00:00Z' }, utc).givesUp).toBe('Gives up at 14:00 today');
    expect(waitingText({ ...open, gives_up_at: '2026-11-27T14:00:00Z' }, utc).givesUp).toBe('Gives up at 14:00 Fri 27 Nov');
    expect(waitingText({ status: 'proposed', gives_up_at: null, waiting: { why: 'review' } }, utc).givesUp).toBeNull();
    expect(waitingText({ status: 'failed', gives_up_at: null, waiting: null }, utc).givesUp).toBeNull();
  });
});

describe('waitNote: why an open request waits, beside its status in the Requests list', () => {
  it.each([
    [{ why: 'cap' }, 'held: experts at their limit'],
    [{ why: 'quiet_hours' }, 'quiet hours'],
    [{ why: 'llm' }, 'preparing'],
    [{ why: 'review' }, null],
    [null, null],
    [undefined, null],
  ])('%o reads %s', (waiting, note) => {
    expect(waitNote(waiting)).toBe(note);
  });
});
