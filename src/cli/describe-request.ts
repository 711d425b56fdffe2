import { waitSentence } from '../core/wait-sentence.js';
import { answeredWords, waitWords, type AnswerSource } from '../core/wait-words.js';
import { formatWhen } from '../core/describe-time.js';
import type { ExpertWire, ProposalBody, RequestWire, Waiting } from './wire.js';

/** What was done to a proposal, in the CLI's verbs: a sent-back one is rejected with reason "returned". */
export function outcomeOf(p: Pick<ProposalBody, 'status' | 'decision'>): 'accept' | 'reject' | 'return' | 'pending' {
  if (p.status === 'accepted') return 'accept';
  if (p.status === 'rejected') return p.decision?.reason === 'returned' ? 'return' : 'reject';
  return 'pending';
}

export const PAST = { accept: 'accepted', reject: 'rejected', return: 'sent back', pending: 'pending' } as const;

/** "accepted by alice", "sent back by bob", "pending review". */
export function proposalState(p: Pick<ProposalBody, 'status' | 'decision'>): string {
  const outcome = outcomeOf(p);
  if (outcome === 'pending') return 'pending review';
  return `${PAST[outcome]}${p.decision ? ` by ${p.decision.decided_by}` : ''}`;
}

/** Whom a `waiting` names: the expert's name when the request was asked of them, else their id. */
function whom(r: Pick<RequestWire, 'asked'>, expertId: string): string {
  return r.asked?.find((a) => a.expert_id === expertId)?.expert_name ?? expertId;
}

/**
 * Why a request waits, in words (the sentence the web UI and MCP show too); null when the server did
 * not say (older server) or nothing waits. `timeZone` is the organisation's, for an older server that
 * does not name the zone of `until`.
 */
export function waitingReason(r: Pick<RequestWire, 'waiting' | 'asked'> & { proposal?: AnswerSource | null }, now: number, timeZone = 'UTC'): string | null {
  const w: Waiting | null | undefined = r.waiting;
  if (!w) return null;
  return waitSentence(w, { now, name: (id) => whom(r, id), fallbackZone: timeZone, proposal: r.proposal });
}

/**
 * The lines `expertq request` adds about an open request: whom it waits for or why it waits, and when
 * it gives up. Fields the server does not send add nothing.
 */
export function waitingLines(r: Pick<RequestWire, 'waiting' | 'asked' | 'gives_up_at'> & { proposal?: AnswerSource | null }, now: number, timeZone = 'UTC'): string[] {
  const lines: string[] = [];
  const reason = waitingReason(r, now, timeZone);
  if (reason) lines.push(`Waiting: ${reason}`);
  else if (r.waiting === null && r.asked && r.asked.length > 0) {
    const names = r.asked.map((a) => `${a.expert_name}${a.sent_at ? ` (asked ${formatWhen(a.sent_at, now, timeZone)})` : ''}`);
    lines.push(`Waiting: for an answer from ${names.join(', ')}`);
  }
  if (r.gives_up_at) lines.push(`Gives up: ${formatWhen(r.gives_up_at, now, timeZone)}`);
  return lines;
}

/**
 * One line for `ask --wait` about where the request stands ("asked Dana Smith", "proposed: waiting for
 * review"); printed when it differs from the last one printed.
 */
export function progressLine(r: Pick<RequestWire, 'id' | 'status' | 'waiting' | 'asked' | 'asks'> & { proposal?: AnswerSource | null }, now: number, timeZone = 'UTC'): string {
  if (r.status === 'proposed') return `${r.id} proposed: ${answeredWords(r.proposal)}, waiting for review`;
  const reason = waitingReason(r, now, timeZone);
  if (reason) return `${r.id} ${r.status}: ${reason}`;
  const names = r.asked?.map((a) => a.expert_name) ?? r.asks.filter((a) => a.state === 'open').map((a) => a.expert_id);
  if ((r.status === 'asked' || r.status === 'escalated') && names.length > 0) return `${r.id} ${r.status}: asked ${names.join(', ')}`;
  return `${r.id} ${r.status}`;
}

/** The STATE column of `expertq experts`: "available", or why not ("muted", "at cap", "away until …"). */
/** Why an expert cannot be asked now, in a table cell ("off work until 08:00 UTC today"). */
const UNAVAILABLE: Readonly<Record<string, string>> = { cap: 'at cap', dnd: 'do-not-disturb', quiet_hours: 'quiet hours', muted: 'muted', working_hours: 'off work' };

export function expertState(e: Pick<ExpertWire, 'muted' | 'available_now' | 'unavailable'>, now: number, timeZone = 'UTC'): string {
  const u = e.unavailable;
  if (u) {
    const label = UNAVAILABLE[u.why] ?? u.why.replace(/_/g, ' ');
    return u.until ? `${label} until ${formatWhen(u.until, now, timeZone)}` : label;
  }
  if (e.muted) return 'muted';
  if (e.available_now === false) return 'unavailable';
  return 'available';
}

/** A line under `expertq experts` for an expert who is away: until when, who stands in, and the note. */
export function awayLine(e: Pick<ExpertWire, 'id' | 'away'>, now: number, timeZone = 'UTC'): string | null {
  if (!e.away) return null;
  const instead = e.away.delegate_to ? `; ${e.away.delegate_to} is asked first meanwhile` : '';
  return `${e.id} is away until ${formatWhen(e.away.until, now, timeZone)}${instead}${e.away.note ? ` (${e.away.note})` : ''}`;
}

/** The drafted question beside the raw one, when an LLM drafted a different one; null otherwise. */
export function askedAsLine(r: Pick<RequestWire, 'question' | 'asked_question'>): string | null {
  if (r.asked_question === null) return 'Asked as: (the question is being drafted)';
  return r.asked_question !== r.question ? `Asked as: ${r.asked_question}` : null;
}

/** A request's status with why it waits, for one table cell: "queued (held)", "asked (quiet hours)". */
export function statusCell(r: Pick<RequestWire, 'status' | 'waiting'>): string {
  const words = waitWords(r.waiting);
  return words ? `${r.status} (${words})` : r.status;
}
