import { describe, expect, it } from 'vitest';
import { readSlackStatus, type DndInfo, type StatusProfile } from '../../src/transport/slack/read-slack-status.js';

const NOW = Date.parse('2026-11-23T10:00:00Z');
const s = (iso: string) => Date.parse(iso) / 1000;
const RULES = { emoji: [':palm_tree:', ':airplane:'], pattern: /out of office|ooo|vacation/i };

describe('readSlackStatus', () => {
  const cases: Array<[string, DndInfo, StatusProfile, { dndUntil: string | null; awayUntil: string | null }]> = [
    ['nothing set', { dnd_enabled: false }, {}, { dndUntil: null, awayUntil: null }],
    ['inside the scheduled do-not-disturb window', { dnd_enabled: true, next_dnd_start_ts: s('2026-11-23T09:00:00Z'), next_dnd_end_ts: s('2026-11-23T11:00:00Z') }, {}, { dndUntil: '2026-11-23T11:00:00.000Z', awayUntil: null }],
    ['before the window starts', { dnd_enabled: true, next_dnd_start_ts: s('2026-11-23T22:00:00Z'), next_dnd_end_ts: s('2026-11-24T07:00:00Z') }, {}, { dndUntil: null, awayUntil: null }],
    ['snoozed', { dnd_enabled: false, snooze_enabled: true, snooze_endtime: s('2026-11-23T10:30:00Z') }, {}, { dndUntil: '2026-11-23T10:30:00.000Z', awayUntil: null }],
    ['a snooze that has ended', { snooze_enabled: true, snooze_endtime: s('2026-11-23T09:30:00Z') }, {}, { dndUntil: null, awayUntil: null }],
    ['an away emoji with an expiration', {}, { status_emoji: ':palm_tree:', status_expiration: s('2026-11-30T00:00:00Z') }, { dndUntil: null, awayUntil: '2026-11-30T00:00:00.000Z' }],
    ['away text, any case', {}, { status_text: 'On VACATION', status_emoji: ':sunny:', status_expiration: s('2026-11-25T00:00:00Z') }, { dndUntil: null, awayUntil: '2026-11-25T00:00:00.000Z' }],
    ['an away status without an expiration', {}, { status_emoji: ':airplane:', status_expiration: 0 }, { dndUntil: null, awayUntil: null }],
    ['an away status that expired', {}, { status_emoji: ':airplane:', status_expiration: s('2026-11-23T09:00:00Z') }, { dndUntil: null, awayUntil: null }],
    ['another status', {}, { status_text: 'In a meeting', status_emoji: ':spiral_calendar_pad:', status_expiration: s('2026-11-23T11:00:00Z') }, { dndUntil: null, awayUntil: null }],
  ];
  it.each(cases)('%s', (_name, dnd, profile, expected) => {
    const found = readSlackStatus(dnd, profile, NOW, RULES);
    expect({
      dndUntil: found.dndUntil === null ? null : new Date(found.dndUntil).toISOString(),
      awayUntil: found.awayUntil === null ? null : new Date(found.awayUntil).toISOString(),
    }).toEqual(expected);
  });
});
