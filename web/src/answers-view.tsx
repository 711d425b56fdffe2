import { useEffect, useRef, useState } from 'preact/hooks';
import { Unauthorized, type Api } from './api.js';
import { AnswerEntry } from './answer-entry.js';
import { answersHash, type AnswerFilters } from './routes.js';
import type { Answer, AnswerStats } from './wire.js';

const PAGE = 20;
/** Typing pauses this long before the search runs: one search per word, not per key. */
const DEBOUNCE_MS = 300;
const STATUSES: ReadonlyArray<[value: string, label: string]> = [['', 'active'], ['stale', 'stale'], ['retired', 'retired'], ['any', 'any']];

const sameFilters = (a: AnswerFilters, b: AnswerFilters) => a.q.trim() === b.q.trim() && a.topic.trim() === b.topic.trim() && a.status === b.status;

/**
 * The answer library: search it (ranked, best first, as one types), filter by topic and status, page
 * on with "More", and retire an entry that no longer holds (with a reason). The filters live in the
 * URL, so a search can be shared. Above the list: how many asks reuse has spared.
 */
export function AnswersView(props: {
  api: Api;
  filters: AnswerFilters;
  onUnauthorized: () => void;
  announce: (text: string, tone?: 'error') => void;
  /** Null when this token may not retire entries: the action is not shown. */
  reviewer: (() => Promise<string | null>) | null;
}) {
  const { api, filters, onUnauthorized, announce } = props;
  const [draft, setDraft] = useState<AnswerFilters>(filters);
  const [items, setItems] = useState<Answer[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [stats, setStats] = useState<AnswerStats | null>(null);
  const [error, setError] = useState<string | null>(null);
  const search = useRef<HTMLInputElement>(null);
  // The hash this page last wrote itself: its hashchange must not undo what was typed since.
  const written = useRef<string | null>(null);
  const applied = filters;

  const failed = (e: unknown) => {
    if (e instanceof Unauthorized) return onUnauthorized();
    setError(e instanceof Error ? e.message : String(e));
  };

  /** Applies filters by writing them to the URL (replacing, not adding, a history entry). */
  const apply = (next: AnswerFilters) => {
    written.current = answersHash(next);
    location.replace(written.current);
  };

  // New filters from the URL (a link, the nav, back): they win over what was typed.
  useEffect(() => {
    if (answersHash(filters) !== written.current) setDraft(filters);
    written.current = null;
  }, [answersHash(filters)]);

  // What is typed is searched once typing pauses.
  useEffect(() => {
    if (sameFilters(draft, filters)) return;
    const timer = setTimeout(() => apply(draft), DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [draft, answersHash(filters)]);

  const appliedKey = answersHash(applied);
  useEffect(() => {
    let live = true;
    setItems(null);
    setNext(null);
    api.answers(applied, null, PAGE).then((page) => {
      if (!live) return;
      setItems(page.items);
      setNext(page.next_cursor);
      setError(null);
    }, (e: unknown) => live && failed(e));
    return () => {
      live = false;
    };
  }, [api, appliedKey]);

  const loadStats = () => api.answerStats().then(setStats, (e: unknown) => {
    if (e instanceof Unauthorized) onUnauthorized();
  });
  useEffect(() => {
    void loadStats();
  }, [api]);

  const more = async () => {
    if (!next) return;
    setLoadingMore(true);
    try {
      const page = await api.answers(applied, next, PAGE);
      setItems((list) => [...(list ?? []), ...page.items.filter((a) => !list?.some((b) => b.id === a.id))]);
      setNext(page.next_cursor);
    } catch (e) {
      failed(e);
    } finally {
      setLoadingMore(false);
    }
  };

  const retire = async (entry: Answer, reason: string): Promise<boolean> => {
    const decidedBy = await props.reviewer!();
    if (!decidedBy) return false;
    try {
      const retired = await api.retireAnswer(entry.id, { decided_by: decidedBy, reason });
      // Shown only where the status filter still admits it.
      const keep = applied.status === 'any' || applied.status === 'retired';
      setItems((list) => list && (keep ? list.map((a) => (a.id === retired.id ? { ...retired, ...(a.score !== undefined ? { score: a.score } : {}) } : a)) : list.filter((a) => a.id !== retired.id)));
      announce(`Retired: “${entry.question}”. It will not be offered again.`);
      void loadStats();
      if (!keep) requestAnimationFrame(() => search.current?.focus());
      return true;
    } catch (e) {
      if (e instanceof Unauthorized) {
        onUnauthorized();
        return false;
      }
      announce(`Could not retire “${entry.question}”: ${e instanceof Error ? e.message : String(e)}`, 'error');
      return false;
    }
  };

  const field = (name: 'q' | 'topic') => ({
    value: draft[name],
    onInput: (e: Event) => setDraft((d) => ({ ...d, [name]: (e.currentTarget as HTMLInputElement).value })),
  });
  const submit = (event: Event) => {
    event.preventDefault();
    if (!sameFilters(draft, filters)) apply(draft);
  };
  const searching = applied.q.trim() !== '';
  const filtered = searching || applied.topic.trim() !== '' || applied.status !== '';

  return (
    <section class="requests-view" aria-labelledby="answers-title">
      <div class="view-head">
        <h1 id="answers-title">Answers</h1>
        <p class="view-sub">Accepted answers, offered again before any expert is asked</p>
      </div>
      {stats ? (
        <dl class="facts card library-stats" aria-label="The library in figures">
          <div class="fact"><dt>Asks spared</dt><dd><strong>{stats.reuse_accepted}</strong></dd></div>
          <div class="fact"><dt>Active</dt><dd>{stats.entries.active}</dd></div>
          <div class="fact"><dt>Stale</dt><dd>{stats.entries.stale}</dd></div>
          <div class="fact"><dt>Retired</dt><dd>{stats.entries.retired}</dd></div>
        </dl>
      ) : null}
      <form class="card filters answer-filters" role="search" aria-label="Search answers" onSubmit={submit}>
        <div class="field">
          <label for="answers-q">Search</label>
          <input id="answers-q" type="search" ref={search} maxLength={1000} placeholder="Words of the question or answer" {...field('q')} />
        </div>
        <div class="field">
          <label for="answers-topic">Topic</label>
          <input id="answers-topic" maxLength={200} {...field('topic')} />
        </div>
        <div class="field">
          <label for="answers-status">Status</label>
          <select id="answers-status" value={draft.status} onChange={(e) => setDraft((d) => ({ ...d, status: e.currentTarget.value }))}>
            {STATUSES.map(([value, label]) => <option key={value} value={value}>{label}</option>)}
          </select>
        </div>
        <div class="buttons">
          <button type="submit" class="primary">Search</button>
        </div>
      </form>

      {error ? <p class="alert" role="alert">Could not load answers: {error}</p> : null}
      {items === null && !error ? <p class="muted" aria-busy="true">Loading…</p> : null}
      <p class="sr-only" role="status">{items === null ? '' : `${items.length}${next ? ' or more' : ''} ${items.length === 1 ? 'answer' : 'answers'}${searching ? ', best match first' : ''}`}</p>
      {items && items.length === 0 ? (
        <div class="empty card">
          <h2>{filtered ? 'No answers match' : 'No answers yet'}</h2>
          <p class="muted">{filtered ? 'Try other words, another topic or status.' : 'Each accepted answer is kept here, and so are curated ones an admin imports.'}</p>
        </div>
      ) : null}
      {items && items.length > 0 ? (
        <ol class="cards" aria-label={searching ? 'Answers, best match first' : 'Answers, newest first'}>
          {items.map((a, i) => (
            <AnswerEntry key={a.id} entry={a} rank={searching ? i + 1 : null} onRetire={props.reviewer ? (reason) => retire(a, reason) : null} />
          ))}
        </ol>
      ) : null}
      {items && next ? (
        <nav class="pager" aria-label="More answers">
          <button type="button" onClick={() => void more()} disabled={loadingMore}>{loadingMore ? 'Loading…' : 'More'}</button>
        </nav>
      ) : null}
    </section>
  );
}
