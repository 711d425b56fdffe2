import { describe, expect, it } from 'vitest';
import { homeView, readAwayForm } from '../../src/transport/slack/home-blocks.js';
import type { ExpertHome } from '../../src/transport/transport.js';

const NOW = Date.parse('2026-11-23T10:00:00Z');
const HOME: ExpertHome = {
  expertId: 'UDANA',
  name: 'Dana Smith',
  topics: ['billing'],
  muted: false,
  away: null,
  openQuestions: [],
  colleagues: [{ id: 'ULEE', name: 'Lee Chen' }],
  timeZone: 'Europe/Berlin',
};

describe('the Home tab', () => {
  it('escapes a consumer\'s question, so it cannot ping a channel or hide a link', () => {
    const view = homeView({ ...HOME, openQuestions: [{ requestId: 'req_1', question: '<!channel> see <https://evil|docs> & more', askedAt: NOW }] }, NOW);
    const text = JSON.stringify(view.blocks);
    expect(text).toContain('&lt;!channel&gt; see &lt;https://evil|docs&gt; &amp; more');
    expect(text).not.toContain('<!channel>');
  });

  it('shows times in the expert\'s own zone', () => {
    const view = homeView({ ...HOME, away: { until: Date.parse('2026-12-01T00:00:00+01:00'), delegateTo: 'ULEE', note: null } }, NOW);
    expect(JSON.stringify(view.blocks)).toContain('until Tue 1 Dec 00:00 CET, Lee Chen stands in');
  });

  it('lists at most 20 questions and says how many more there are', () => {
    const openQuestions = Array.from({ length: 25 }, (_, i) => ({ requestId: `req_${i}`, question: `Q${i}`, askedAt: NOW }));
    const text = JSON.stringify(homeView({ ...HOME, openQuestions }, NOW).blocks);
    expect(text).toContain('Open questions (25)');
    expect(text).toContain('req_19');
    expect(text).not.toContain('req_20');
    expect(text).toContain('and 5 more');
  });
});

describe('readAwayForm', () => {
  it.each([
    ['a date only', { expertq_away_until: { date: { selected_date: '2026-12-01' } } }, { until: '2026-12-01', delegateTo: null, note: null }],
    [
      'a date, a delegate and a note (trimmed)',
      { expertq_away_until: { date: { selected_date: '2026-12-01' } }, expertq_away_delegate: { expert: { selected_option: { value: 'ULEE' } } }, expertq_away_note: { text: { value: '  Holiday ' } } },
      { until: '2026-12-01', delegateTo: 'ULEE', note: 'Holiday' },
    ],
    ['no date', { expertq_away_note: { text: { value: 'x' } } }, { problem: 'Pick the day you are back, then press the button again.' }],
  ])('%s', (_what, values, expected) => {
    expect(readAwayForm(values)).toEqual(expected);
  });
});
