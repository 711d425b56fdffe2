import type { types } from '@slack/bolt';
import { timeText } from '../../core/describe-time.js';
import type { AwayRequest, ExpertHome } from '../transport.js';
import { escapeMrkdwn } from './slack-text.js';

type KnownBlock = types.KnownBlock;

/** Action ids of the Home tab's buttons and the block and action ids of its Away form. */
export const HOME_ACTION = { mute: 'expertq_home_mute', unmute: 'expertq_home_unmute', away: 'expertq_home_away', back: 'expertq_home_back' } as const;
export const AWAY_FORM = {
  until: { block: 'expertq_away_until', action: 'date' },
  delegate: { block: 'expertq_away_delegate', action: 'expert' },
  note: { block: 'expertq_away_note', action: 'text' },
} as const;

/** Slack lists at most 100 options in a select, and a Home tab at most 100 blocks. */
const MAX_OPTIONS = 100;
const MAX_QUESTIONS = 20;

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const mrkdwn = (text: string): KnownBlock => ({ type: 'section', text: { type: 'mrkdwn', text } });
const plain = (text: string) => ({ type: 'plain_text' as const, text });

/**
 * An expert's Home tab: their open questions, topics, whether they are muted (with Mute / Unmute),
 * whether they are away (with Back), and the Away form (the day they are back, who stands in, a note).
 * `notice` is a line at the top about what just happened (a refused away spell, say).
 */
export function homeView(home: ExpertHome, now: number, notice: string | null = null): types.HomeView {
  const when = (ms: number) => timeText(ms, now, home.timeZone);
  const nameOf = (id: string) => home.colleagues.find((c) => c.id === id)?.name ?? id;
  const blocks: KnownBlock[] = [{ type: 'header', text: plain(`Your questions, ${clip(home.name, 120)}`) }];
  if (notice) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `:warning: ${escapeMrkdwn(notice)}` }] });

  const open = home.openQuestions;
  blocks.push(mrkdwn(open.length === 0 ? '*Open questions:* none right now.' : `*Open questions (${open.length})* — answer each in the thread of its message.`));
  for (const q of open.slice(0, MAX_QUESTIONS)) {
    blocks.push(mrkdwn(`\`${q.requestId}\` asked ${escapeMrkdwn(when(q.askedAt))}\n>${escapeMrkdwn(clip(q.question, 500)).replace(/\n/g, '\n>')}`));
  }
  if (open.length > MAX_QUESTIONS) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `…and ${open.length - MAX_QUESTIONS} more.` }] });
  blocks.push(mrkdwn(`*Your topics:* ${home.topics.length === 0 ? 'none' : escapeMrkdwn(home.topics.join(', '))}`));
  blocks.push({ type: 'divider' });

  blocks.push({
    type: 'section',
    text: { type: 'mrkdwn', text: home.muted ? ':no_bell: *Muted:* you get no questions until you unmute.' : ':bell: You receive questions.' },
    accessory: home.muted
      ? { type: 'button', action_id: HOME_ACTION.unmute, text: plain('Unmute'), style: 'primary' }
      : { type: 'button', action_id: HOME_ACTION.mute, text: plain('Mute'), style: 'danger' },
  });

  const away = home.away;
  if (away) {
    const delegate = away.delegateTo ? `, ${escapeMrkdwn(nameOf(away.delegateTo))} stands in` : '';
    const note = away.note ? `\n_${escapeMrkdwn(clip(away.note, 300))}_` : '';
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: `:palm_tree: *Away* until ${escapeMrkdwn(when(away.until))}${delegate}.${note}` },
      accessory: { type: 'button', action_id: HOME_ACTION.back, text: plain('Back'), style: 'primary' },
    });
  } else {
    blocks.push(mrkdwn('*Away?* Say until when, and who answers for you meanwhile: your open questions pass to them at once.'));
  }
  blocks.push(...awayForm(home));
  return { type: 'home', blocks };
}

function awayForm(home: ExpertHome): KnownBlock[] {
  const options = home.colleagues.slice(0, MAX_OPTIONS).map((c) => ({ text: plain(clip(c.name, 75)), value: c.id }));
  const current = home.away?.delegateTo ? options.find((o) => o.value === home.away?.delegateTo) : undefined;
  const blocks: KnownBlock[] = [
    {
      type: 'input',
      block_id: AWAY_FORM.until.block,
      label: plain('Back on'),
      element: { type: 'datepicker', action_id: AWAY_FORM.until.action, placeholder: plain('The day you are back') },
    },
  ];
  if (options.length > 0) {
    blocks.push({
      type: 'input',
      block_id: AWAY_FORM.delegate.block,
      optional: true,
      label: plain('Who answers for you'),
      element: { type: 'static_select', action_id: AWAY_FORM.delegate.action, placeholder: plain('Nobody: your escalation contact'), options, ...(current ? { initial_option: current } : {}) },
    });
  }
  blocks.push(
    {
      type: 'input',
      block_id: AWAY_FORM.note.block,
      optional: true,
      label: plain('Note'),
      element: { type: 'plain_text_input', action_id: AWAY_FORM.note.action, max_length: 300, placeholder: plain('On holiday, back on Monday') },
    },
    { type: 'actions', block_id: 'expertq_away', elements: [{ type: 'button', action_id: HOME_ACTION.away, text: plain(home.away ? 'Change away' : 'Go away'), style: 'primary' }] },
  );
  return blocks;
}

/** The Home tab of someone who is not a registered expert. */
export function notAnExpertView(): types.HomeView {
  return {
    type: 'home',
    blocks: [mrkdwn('You are not registered as an expert, so expertq has no questions for you. An administrator can add you to the experts.')],
  };
}

/** The form's state as Slack sends it with a click (`view.state.values`). */
export type FormValues = Record<string, Record<string, { selected_date?: string | null; selected_option?: { value: string } | null; value?: string | null }>>;

/** The Away form read into an away spell, or why it cannot be (no date picked). */
export function readAwayForm(values: FormValues): AwayRequest | { problem: string } {
  const until = values[AWAY_FORM.until.block]?.[AWAY_FORM.until.action]?.selected_date;
  if (!until) return { problem: 'Pick the day you are back, then press the button again.' };
  const delegateTo = values[AWAY_FORM.delegate.block]?.[AWAY_FORM.delegate.action]?.selected_option?.value ?? null;
  const note = values[AWAY_FORM.note.block]?.[AWAY_FORM.note.action]?.value?.trim() || null;
  return { until, delegateTo, note };
}
