import { searchWords } from '../core/search-words.js';
import type { AnswerRecord, AnswerStatus, Retirement } from '../domain/answers.js';

/** A library search: every filter optional; with `q`, ranked by relevance, else newest first. */
export interface AnswerQuery {
  /** Text to search for: its words (`core/search-words.ts`), any of them matching, best matches first. */
  q?: string | undefined;
  topic?: string | undefined;
  status?: AnswerStatus | undefined;
  /** Only entries written for this consumer's requests. */
  consumerId?: string | undefined;
  /** Active entries verified before this instant read `stale`. */
  staleBefore: number;
  limit: number;
  /** From the previous page's `next_cursor`. */
  cursor?: string | undefined;
}

/** An entry found by a search; `score` (higher is better) only when the search had words. */
export type FoundAnswer = AnswerRecord & { score?: number };

export interface AnswerPage {
  items: FoundAnswer[];
  next_cursor: string | null;
}

/** The whole library in figures: entries by status, and the asks reuse has spared. */
export interface AnswerStats {
  active: number;
  stale: number;
  retired: number;
  /** Reused proposals accepted (the sum of every entry's `reuse_count`, retired ones included). */
  reuse_accepted: number;
}

/** Entries that might answer a new request again: looked up by their questions' words, scored by the caller. */
export interface ReuseQuery {
  /** The request's normalized topic and kind: only entries of both are offered. */
  topic: string;
  kind: string;
  /** Words as matching splits questions (`core/match-question.ts`): an entry whose question has any of them is a candidate. */
  words: readonly string[];
  /** Entries verified before this instant are stale: listed after every fresh one (they are not offered, only shown to the expert). */
  staleBefore: number;
  /** Only entries of this consumer's requests and curated ones (no consumer). */
  consumerId?: string | undefined;
  /** The this many sharing the most of `words`, so a popular topic costs no more than a small one. */
  limit: number;
}

/** What confirming an entry again changes. */
export interface AnswerRefresh {
  answer: string;
  structured: unknown;
  verifiedAt: number;
}

/** The answer library: entries, their full-text index (kept in step by every write) and retirement. */
export interface AnswerReads {
  get(id: string): Promise<AnswerRecord | undefined>;
  search(query: AnswerQuery): Promise<AnswerPage>;
  /** The topics and kinds that have at least one active entry (fresh or stale), each once. */
  activeTopics(): Promise<Array<{ topic: string; kind: string }>>;
  /** One pass over the entries: active ones verified before `staleBefore` count as stale. */
  stats(staleBefore: number): Promise<AnswerStats>;
  /**
   * Active entries of the topic and kind whose question has one of the words: the fresh ones first, then
   * the stale ones, each those sharing the most words first; none without words.
   */
  reuseCandidates(query: ReuseQuery): Promise<AnswerRecord[]>;
}

export interface AnswerRepository extends AnswerReads {
  insert(answer: AnswerRecord): Promise<void>;
  /** Retires an active entry; false (and no change) when it was already retired or does not exist. */
  retire(id: string, retirement: Retirement): Promise<boolean>;
  /**
   * An active entry confirmed again (an expert's `same`, accepted): it is verified as of `verifiedAt`,
   * with the answer as delivered this time. False (and no change) when it is retired or does not exist.
   */
  refresh(id: string, refreshed: AnswerRefresh): Promise<boolean>;
  /** Counts one more accepted reuse of an entry. */
  countReuse(id: string): Promise<void>;
}

/**
 * Pages of a ranked search go by position (relevance has no key to continue from); unranked pages go
 * by id, so an entry added meanwhile does not shift the next page.
 */
export function rankedOffset(cursor: string | undefined): number {
  const n = cursor === undefined ? 0 : Number(cursor);
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

/** The distinct words of a library search, in the order they first appear (an engine ORs them). */
export function queryWords(text: string): string[] {
  return [...new Set(searchWords(text))];
}
