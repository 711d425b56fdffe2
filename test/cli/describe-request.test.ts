import { describe, expect, it } from 'vitest';
import { expertState, progressLine, proposalState, statusCell, waitingLines } from '../../src/cli/describe-request.js';

const NOW = Date.parse('2026-11-24T13:14:00Z');
const dana = { expert_id: 'dana', expert_name: 'Dana Smith', sent_at: '2026-11-24T13:02:00Z' };

describe('what `expertq request` says about an open request', () => {
  it.each([
    ['an older server that sends none of the fields', {}, []],
    ['a closed request', { waiting: null, asked: [], gives_up_at: null }, []],
    ['an ask out and unanswered', { waiting: null, asked: [dana], gives_up_at: '2026-11-24T14:00:00Z' }, [
      'Waiting: for an answer from Dana Smith (asked 13:02 UTC today)',
      'Gives up: 14:00 UTC today',
    ]],
    ['held at the daily cap', { waiting: { why: 'cap', until: '2026-11-26T00:00:00Z', timezone: 'UTC' }, asked: [], gives_up_at: '2026-11-25T11:37:00Z' }, [
      'Waiting: Every expert for this topic is at their daily limit; the question goes out at 00:00 UTC on Thu 26 Nov, in 35 h',
      'Gives up: Wed 25 Nov 11:37 UTC',
    ]],
    ['held at the open-asks cap', { waiting: { why: 'cap' }, asked: [], gives_up_at: null }, [
      'Waiting: Every expert for this topic is at their limit; the question goes out when one of them answers an open question',
    ]],
    ['quiet hours, on the organisation\'s clock', { waiting: { why: 'quiet_hours', until: '2026-11-25T08:00:00Z', timezone: 'Europe/Berlin' }, asked: [], gives_up_at: null }, [
      'Waiting: Quiet hours end at 09:00 Europe/Berlin on Wed 25 Nov, in 19 h; then the expert is asked',
    ]],
    ['the question being drafted', { waiting: { why: 'llm' }, asked: [], gives_up_at: null }, ['Waiting: Preparing the question for the expert, or checking it against earlier answers; nobody is asked yet']],
    ['an answer waiting for review', { waiting: { why: 'review', expert_id: 'dana' }, asked: [], gives_up_at: null }, [
      'Waiting: An expert answered; a reviewer must accept, reject or send it back',
    ]],
    ['a library answer waiting for review', { waiting: { why: 'review' }, asked: [], gives_up_at: null, proposal: { provenance: { expert_name: 'Dana Smith', reused_from: 'ans_1' } } }, [
      'Waiting: The library has an earlier answer from Dana Smith (no expert was asked); a reviewer must accept, reject or send it back',
    ]],
    ['an expert away, named from the asks, on their clock', { waiting: { why: 'away', expert_id: 'dana', until: '2026-11-30T09:00:00Z', timezone: 'America/New_York' }, asked: [dana], gives_up_at: null }, [
      'Waiting: Dana Smith is away until 04:00 America/New_York on Mon 30 Nov, in 6 days',
    ]],
  ])('%s', (_what, fields, expected) => {
    expect(waitingLines(fields, NOW)).toEqual(expected);
  });

  it('uses the organisation time zone when given', () => {
    expect(waitingLines({ gives_up_at: '2026-11-24T23:30:00Z' }, NOW, 'Europe/Berlin')).toEqual(['Gives up: Wed 25 Nov 00:30 CET']);
  });
});

describe('a proposal in words', () => {
  it.each([
    [{ status: 'pending', decision: null }, 'pending review'],
    [{ status: 'accepted', decision: { decided_by: 'alice', reason: null } }, 'accepted by alice'],
    [{ status: 'rejected', decision: { decided_by: 'carol', reason: 'too vague' } }, 'rejected by carol'],
    [{ status: 'rejected', decision: { decided_by: 'bob', reason: 'returned' } }, 'sent back by bob'],
  ])('%o reads "%s"', (p, expected) => {
    expect(proposalState(p as Parameters<typeof proposalState>[0])).toBe(expected);
  });
});

describe('ask --wait progress lines', () => {
  const base = { id: 'req_1', asks: [] as Array<{ id: string; expert_id: string; sent_at: string | null; state: string }> };
  it.each([
    [{ ...base, status: 'queued' }, 'req_1 queued'],
    [{ ...base, status: 'asked', asked: [dana], waiting: null }, 'req_1 asked: asked Dana Smith'],
    // An older server: the open asks name the experts by id.
    [{ ...base, status: 'escalated', asks: [{ id: 'ask_1', expert_id: 'lee', sent_at: null, state: 'open' }] }, 'req_1 escalated: asked lee'],
    [{ ...base, status: 'queued', waiting: { why: 'cap' } }, 'req_1 queued: Every expert for this topic is at their limit; the question goes out when one of them answers an open question'],
    [{ ...base, status: 'proposed', waiting: { why: 'review' } }, 'req_1 proposed: an expert answered, waiting for review'],
    [{ ...base, status: 'proposed', waiting: { why: 'review' }, proposal: { provenance: { expert_name: 'Dana Smith' } } }, 'req_1 proposed: Dana Smith answered, waiting for review'],
  ])('%o', (r, expected) => {
    expect(progressLine(r as Parameters<typeof progressLine>[0], NOW)).toBe(expected);
  });
});

describe('the STATE column of `expertq experts`', () => {
  it.each([
    ['an older server, not muted', { muted: false }, 'available'],
    ['an older server, muted', { muted: true }, 'muted'],
    ['available now', { muted: false, available_now: true, unavailable: null }, 'available'],
    ['at the daily cap', { muted: false, available_now: false, unavailable: { why: 'cap', until: '2026-11-25T00:00:00Z' } }, 'at cap until Wed 25 Nov 00:00 UTC'],
    ['at the open-asks cap', { muted: false, available_now: false, unavailable: { why: 'cap' } }, 'at cap'],
    ['in quiet hours', { muted: false, available_now: false, unavailable: { why: 'quiet_hours', until: '2026-11-24T18:00:00Z' } }, 'quiet hours until 18:00 UTC today'],
    ['muted', { muted: true, available_now: false, unavailable: { why: 'muted' } }, 'muted'],
    ['in Slack do-not-disturb', { muted: false, available_now: false, unavailable: { why: 'dnd', until: '2026-11-24T18:00:00Z' } }, 'do-not-disturb until 18:00 UTC today'],
    ['not available, no reason given', { muted: false, available_now: false, unavailable: null }, 'unavailable'],
  ])('%s: %s', (_what, e, expected) => {
    expect(expertState(e, NOW)).toBe(expected);
  });
});

describe('statusCell: the STATUS column of `expertq requests` says why an open request waits', () => {
  it.each([
    [{ status: 'queued', waiting: { why: 'cap' } }, 'queued (held)'],
    [{ status: 'asked', waiting: { why: 'quiet_hours', until: '2026-11-25T07:00:00Z' } }, 'asked (quiet hours)'],
    [{ status: 'proposed', waiting: { why: 'review' } }, 'proposed'],
    [{ status: 'asked', waiting: null }, 'asked'],
    [{ status: 'accepted' }, 'accepted'],
  ])('%o reads %s', (r, text) => {
    expect(statusCell(r as Parameters<typeof statusCell>[0])).toBe(text);
  });
});
