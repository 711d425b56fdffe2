import type { CheckingTransport } from './checking-transport.js';
import type { SimulationResult } from './simulate.js';

/** The per-send checks, as the report names them. */
const SEND_CHECK_WORDS: Record<keyof CheckingTransport['checked'], string> = {
  working_hours: 'working hours (expert zone)',
  quiet_hours: 'quiet hours (org zone)',
  away: 'away spells',
  away_status: 'Slack away statuses',
  dnd: 'Slack do-not-disturb windows',
  mute: 'mute',
  open_cap: 'max open asks',
  daily_cap: 'max asks per day (expert zone)',
  elements: 'the six ask elements',
};

/** The figures as the `npm run simulate` report prints them. */
export function report(r: SimulationResult): string {
  const n = (v: number | undefined) => (v ?? 0).toLocaleString('en-US');
  const lines = Object.entries(r.figures).filter(([k]) => !k.startsWith('sends_')).map(([k, v]) => `  ${k.padEnd(20)} ${n(v)}`);
  const dndGrace = `  sends in the first 5 minutes of a do-not-disturb window (expertq reads Slack every 5 minutes): ${n(r.figures.sends_dnd_grace)}`;
  const awayGrace = `  sends in the first 5 minutes of a Slack away status (likewise): ${n(r.figures.sends_away_status_grace)}`;
  const zones = Object.entries(r.figures).filter(([k]) => k.startsWith('sends_in_')).map(([k, v]) => `${k.slice('sends_in_'.length)} ${n(v)}`);
  const checked = Object.entries(SEND_CHECK_WORDS).map(([rule, words]) => `  sends checked against ${words}: ${n(r.figures[`sends_checked_${rule}`])}`);
  return [
    `simulation: seed ${r.seed}, ${r.requests.toLocaleString('en-US')} requests, ${(r.elapsedMs / 1000).toFixed(1)} s`,
    ...lines,
    `  sends by expert zone: ${zones.join(', ')}`,
    ...checked,
    dndGrace,
    awayGrace,
    `  violations: ${r.violations.length}`,
    ...r.violations.slice(0, 20).map((v) => `    ${v}`),
  ].join('\n');
}
