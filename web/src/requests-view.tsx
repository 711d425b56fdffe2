import { useEffect, useRef, useState } from 'preact/hooks';
import { Unauthorized, type Api } from './api.js';
import { CopyId } from './copy-id.js';
import { dateTime } from './format.js';
import { requestsHash, type RequestFilters } from './routes.js';
import type { RequestRecord } from './wire.js';
import { waitNote } from './waiting-text.js';

const STATUSES = ['queued', 'asked', 'escalated', 'proposed', 'accepted', 'rejected', 'failed'];
const PAGE = 25;

/**
 * The history of requests, newest first: filter by status, topic and consumer, search the question
 * text, page back and forth. The filters live in the URL (`#/requests?status=failed`), so a filtered
 * view survives a reload and can be shared.
 */
export function RequestsView(props: { api: Api; filters: RequestFilters; onUnauthorized: () => void }) {
  const { api, filters, onUnauthorized } = props;
  const [draft, setDraft] = useState<RequestFilters>(filters);
  // Cursors of the pages before this one (null: the first page), and this page's own.
  const [trail, setTrail] = useState<Array<string | null>>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [page, setPage] = useState<{ items: RequestRecord[]; next_cursor: string | null } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const key = JSON.stringify(filters);
  const lastKey = useRef(key);

  // New filters from the URL: back to the first page.
  useEffect(() => {
    setDraft(filters);
    if (lastKey.current !== key) {
      lastKey.current = key;
      setTrail([]);
      setCursor(null);
    }
  }, [key]);

  useEffect(() => {
    let live = true;
    setPage(null);
    api.requests(filters, cursor, PAGE).then(
      (result) => {
        if (!live) return;
        setPage(result);
        setError(null);
      },
      (e: unknown) => {
        if (e instanceof Unauthorized) return onUnauthorized();
        if (live) setError(e instanceof Error ? e.message : String(e));
      },
    );
    return () => {
      live = false;
    };
  }, [api, key, cursor]);

  const apply = (event: Event) => {
    event.preventDefault();
    location.hash = requestsHash(draft);
  };
  const clear = () => {
    location.hash = requestsHash({ status: '', topic: '', consumer_id: '', q: '' });
  };
  const field = (name: keyof RequestFilters) => ({
    value: draft[name],
    onInput: (e: Event) => setDraft((d) => ({ ...d, [name]: (e.currentTarget as HTMLInputElement).value })),
  });
  const filtered = Object.values(filters).some((v) => v.trim());
  const pageNumber = trail.length + 1;

  return (
    <section class="requests-view" aria-labelledby="requests-title">
      <div class="view-head">
        <h1 id="requests-title">Requests</h1>
        <p class="view-sub">Every request, newest first: find accepted, failed and cancelled ones here</p>
      </div>
      <form class="card filters" role="search" aria-label="Filter requests" onSubmit={apply}>
        <div class="field">
          <label for="filter-q">Question words</label>
          <input id="filter-q" type="search" maxLength={200} {...field('q')} />
        </div>
        <div class="field">
          <label for="filter-status">Status</label>
          <select id="filter-status" value={draft.status} onChange={(e) => setDraft((d) => ({ ...d, status: e.currentTarget.value }))}>
            <option value="">any</option>
            {STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </div>
        <div class="field">
          <label for="filter-topic">Topic</label>
          <input id="filter-topic" maxLength={200} {...field('topic')} />
        </div>
        <div class="field">
          <label for="filter-consumer">Consumer</label>
          <input id="filter-consumer" maxLength={200} {...field('consumer_id')} />
        </div>
        <div class="buttons">
          <button type="submit" class="primary">Search</button>
          {filtered ? <button type="button" onClick={clear}>Clear filters</button> : null}
        </div>
      </form>

      {error ? <p class="alert" role="alert">Could not load requests: {error}</p> : null}
      {page === null && !error ? <p class="muted" aria-busy="true">Loading…</p> : null}
      {page && page.items.length === 0 ? (
        <div class="empty card" role="status">
          <h2>{filtered ? 'No requests match these filters' : 'No requests yet'}</h2>
          {filtered ? <p class="muted">Try fewer filters, or <button type="button" class="link" onClick={clear}>clear them</button>.</p> : null}
        </div>
      ) : null}
      {page && page.items.length > 0 ? (
        <div class="card table-card">
          <table class="history">
            <caption class="sr-only">Requests, newest first, page {pageNumber}</caption>
            {/* Fixed widths for everything but the question, which takes the rest. */}
            <colgroup>
              <col class="col-submitted" />
              <col class="col-status" />
              <col />
              <col class="col-topic" />
              <col class="col-consumer" />
              <col class="col-id" />
            </colgroup>
            <thead>
              <tr>
                <th scope="col">Submitted</th>
                <th scope="col">Status</th>
                <th scope="col">Question</th>
                <th scope="col">Topic</th>
                <th scope="col">Consumer</th>
                <th scope="col">Request id</th>
              </tr>
            </thead>
            <tbody>
              {page.items.map((r) => (
                <tr key={r.id}>
                  <td data-label="Submitted"><time dateTime={r.created_at}>{dateTime(r.created_at)}</time></td>
                  <td data-label="Status">
                    <span class={`status status-${r.status}`}>{r.status}</span>
                    {r.reason ? <span class="muted small-note"> {r.reason.code.replace(/_/g, ' ')}</span> : null}
                    {waitNote(r.waiting) ? <span class="muted small-note"> {waitNote(r.waiting)}</span> : null}
                  </td>
                  <th scope="row" data-label="Question"><a href={`#/requests/${encodeURIComponent(r.id)}`}>{r.question}</a></th>
                  <td data-label="Topic"><span class="chip">{r.topic}</span></td>
                  <td data-label="Consumer">{r.consumer_id}</td>
                  <td data-label="Request id"><CopyId id={r.id} label="request id" /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {page && (trail.length > 0 || page.next_cursor) ? (
        <nav class="pager" aria-label="Pages">
          <button type="button" disabled={trail.length === 0} onClick={() => {
            setCursor(trail[trail.length - 1] ?? null);
            setTrail((t) => t.slice(0, -1));
          }}>← Newer</button>
          <span class="muted">Page {pageNumber}</span>
          <button type="button" disabled={!page.next_cursor} onClick={() => {
            setTrail((t) => [...t, cursor]);
            setCursor(page.next_cursor);
          }}>Older →</button>
        </nav>
      ) : null}
    </section>
  );
}
