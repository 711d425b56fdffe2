import { normalizeTopic } from '../../core/normalize-topic.js';
import { answerStatusAt, curatedEntry, staleBefore as staleBeforeAt, type AnswerRecord, type AnswerStatus } from '../../domain/answers.js';
import { badRequest, notFound, type ErrorDetail } from '../../errors.js';
import { newId } from '../../ids.js';
import type { AnswerStats, FoundAnswer } from '../../store/store.js';
import { audit, type Engine, type Roster, libraryKey } from '../engine/index.js';

/**
 * Who reads the library: reviewers and admins (`consumer: null`) see every entry; a consumer sees
 * active entries only, and with `library.share: same_consumer` only those answering its own requests.
 */
export interface AnswerViewer {
  consumer: string | null;
}

export const EVERYONE: AnswerViewer = { consumer: null };

/** An entry on the wire: times as ISO strings, `stale` worked out, and whose request it was left out. */
export type AnswerView = Omit<AnswerRecord, 'consumer_id' | 'created_at' | 'accepted_at' | 'verified_at' | 'status' | 'retired'> & {
  accepted_at: string;
  verified_at: string;
  status: AnswerStatus;
  retired: { reason: string; by: string; at: string } | null;
  score?: number;
};

export interface AnswerListQuery {
  q?: string | undefined;
  topic?: string | undefined;
  status?: AnswerStatus | undefined;
  limit: number;
  cursor?: string | undefined;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Active entries verified before this instant read `stale`. */
const staleBefore = (engine: Pick<Engine, 'clock' | 'config'>) => staleBeforeAt(engine.clock.now(), engine.config.library.verify_after);

export function answerStatus(engine: Pick<Engine, 'clock' | 'config'>, a: AnswerRecord): AnswerStatus {
  return answerStatusAt(a, engine.clock.now(), engine.config.library.verify_after);
}

export function answerView(engine: Pick<Engine, 'clock' | 'config'>, a: FoundAnswer): AnswerView {
  return {
    id: a.id,
    topic: a.topic,
    kind: a.kind,
    question: a.question,
    answer: a.answer,
    structured: a.structured,
    expert_id: a.expert_id,
    expert_name: a.expert_name,
    request_id: a.request_id,
    proposal_id: a.proposal_id,
    accepted_at: iso(a.accepted_at),
    accepted_by: a.accepted_by,
    verified_at: iso(a.verified_at),
    status: answerStatus(engine, a),
    reuse_count: a.reuse_count,
    retired: a.retired && { reason: a.retired.reason, by: a.retired.by, at: iso(a.retired.at) },
    ...(a.score !== undefined ? { score: Math.round(a.score * 1e6) / 1e6 } : {}),
  };
}

/** Searches the library as `viewer` may see it: ranked by relevance with `q`, newest first without. */
export async function listAnswers(engine: Pick<Engine, 'store' | 'clock' | 'config'>, viewer: AnswerViewer, query: AnswerListQuery): Promise<{ items: AnswerView[]; next_cursor: string | null }> {
  let { status } = query;
  let consumerId: string | undefined;
  if (viewer.consumer !== null) {
    if (status !== undefined && status !== 'active') return { items: [], next_cursor: null };
    status = 'active';
    if (engine.config.library.share === 'same_consumer') consumerId = viewer.consumer;
  }
  const page = await engine.store.answers.search({
    q: query.q,
    topic: query.topic === undefined ? undefined : normalizeTopic(query.topic),
    status,
    consumerId,
    staleBefore: staleBefore(engine),
    limit: query.limit,
    cursor: query.cursor,
  });
  return { items: page.items.map((a) => answerView(engine, a)), next_cursor: page.next_cursor };
}

/** The whole library in figures, for reviewers and metrics: entries by status and the asks reuse has spared. */
export async function libraryStats(engine: Pick<Engine, 'store' | 'clock' | 'config'>): Promise<AnswerStats> {
  return engine.store.answers.stats(staleBefore(engine));
}

/** One entry; one the viewer may not see is answered as if it did not exist. */
export async function getAnswer(engine: Pick<Engine, 'store' | 'clock' | 'config'>, viewer: AnswerViewer, id: string): Promise<AnswerView> {
  const entry = await engine.store.answers.get(id);
  if (!entry || !maySee(engine, viewer, entry)) throw notFound('Answer', id);
  return answerView(engine, entry);
}

function maySee(engine: Pick<Engine, 'clock' | 'config'>, viewer: AnswerViewer, entry: AnswerRecord): boolean {
  if (viewer.consumer === null) return true;
  if (answerStatus(engine, entry) !== 'active') return false;
  return engine.config.library.share === 'all' || entry.consumer_id === viewer.consumer;
}

/** A curated entry as an admin sends it (one line of an import). */
export interface CuratedInput {
  topic: string;
  kind?: string | undefined;
  question: string;
  answer: string;
  expert_id: string;
  /** ISO time the answer was last known right (default: now). */
  verified_at?: string | undefined;
}

/** At most this many problems are spelled out in an import's error message (its details name them all). */
const PROBLEMS_IN_MESSAGE = 10;

/**
 * Adds curated entries (an existing FAQ) in one transaction: every entry is checked first, and if any
 * is wrong nothing is added and the error names each wrong entry (`at` says how the caller counts them:
 * `entries.3`, `line 4`), in order, with `earlier` (what was wrong with entries that did not even have
 * the right shape, each with its position: the caller found those; `positions` then says where each
 * of `inputs` was).
 */
export async function addAnswers(
  engine: Roster & Pick<Engine, 'store' | 'clock' | 'log' | 'libraryTopics'>,
  inputs: readonly CuratedInput[],
  by: string,
  at: (index: number) => string,
  { earlier = [], positions }: { earlier?: ReadonlyArray<{ position: number; detail: ErrorDetail }>; positions?: readonly number[] } = {},
): Promise<AnswerView[]> {
  const now = engine.clock.now();
  const problems = [...earlier];
  const position = (i: number) => positions?.[i] ?? i;
  const entries: AnswerRecord[] = [];
  inputs.forEach((input, i) => {
    const expert = engine.experts.get(input.expert_id);
    const verifiedAt = input.verified_at === undefined ? now : Date.parse(input.verified_at);
    if (!expert) problems.push({ position: position(i), detail: { path: `${at(i)}expert_id`, message: `no expert "${input.expert_id}" in the registry` } });
    if (verifiedAt > now) problems.push({ position: position(i), detail: { path: `${at(i)}verified_at`, message: 'is in the future' } });
    if (!expert || verifiedAt > now) return;
    entries.push(
      curatedEntry({
        id: newId('ans'),
        topic: normalizeTopic(input.topic),
        kind: input.kind ?? 'answer',
        question: input.question,
        answer: input.answer,
        structured: { text: input.answer },
        expert,
        by,
        now,
        verifiedAt,
      }),
    );
  });
  if (problems.length > 0) throw invalidEntries(problems);
  await engine.store.transaction(async (tx) => {
    for (const entry of entries) {
      await tx.answers.insert(entry);
      engine.libraryTopics.added(libraryKey(entry.topic, entry.kind), engine.clock.now());
    }
  });
  engine.log.info({ count: entries.length, by }, 'answers added to the library');
  return entries.map((e) => answerView(engine, e));
}

/** The refusal of an import: every problem in the details, in entry order; the first few in the message. */
function invalidEntries(problems: ReadonlyArray<{ position: number; detail: ErrorDetail }>) {
  const ordered = [...problems].sort((a, b) => a.position - b.position).map((p) => p.detail);
  const wrong = new Set(problems.map((p) => p.position)).size;
  const listed = ordered.slice(0, PROBLEMS_IN_MESSAGE).map((p) => `${p.path} ${p.message}`).join('; ');
  const more = ordered.length > PROBLEMS_IN_MESSAGE ? `; and ${ordered.length - PROBLEMS_IN_MESSAGE} more (see details)` : '';
  return badRequest(`${wrong === 1 ? 'An entry is' : `${wrong} entries are`} not valid, so none was added: ${listed}${more}.`, ordered);
}

/**
 * Retires an entry so it is never offered again; once only (retiring it again changes nothing and
 * answers the entry as it is). Who, when and why stay on the entry, and an entry written at an
 * acceptance also gets `answer_retired` in its request's audit trail.
 */
export async function retireAnswer(engine: Pick<Engine, 'store' | 'clock' | 'log' | 'config'>, id: string, input: { by: string; reason: string }): Promise<AnswerView> {
  const { entry, changed } = await engine.store.transaction(async (tx) => {
    const found = await tx.answers.get(id);
    if (!found) throw notFound('Answer', id);
    const retirement = { reason: input.reason, by: input.by, at: engine.clock.now() };
    if (!(await tx.answers.retire(id, retirement))) return { entry: found, changed: false };
    // The request may be gone (retention): the entry keeps the record either way.
    if (found.request_id !== null && (await tx.requests.get(found.request_id))) {
      await audit(engine, tx, { request_id: found.request_id, at: retirement.at, type: 'answer_retired', actor: `reviewer:${input.by}`, data: { answer_id: id, reason: input.reason } });
    }
    return { entry: { ...found, status: 'retired' as const, retired: retirement }, changed: true };
  });
  if (changed) engine.log.info({ answer_id: id, request_id: entry.request_id, by: input.by }, 'answer retired');
  return answerView(engine, entry);
}
