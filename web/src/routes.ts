/** The Requests page's filters, as `GET /requests` names them. */
export interface RequestFilters {
  status: string;
  topic: string;
  consumer_id: string;
  q: string;
}

/** The Answers page's filters: `status` empty means active entries, `any` every status. */
export interface AnswerFilters {
  q: string;
  topic: string;
  status: string;
}

/**
 * The Insights page's filters: a preset `range` (`30d`, `90d`, `1y`, `3y`; empty is 30 days), or the
 * days `from` and `to` (both included, YYYY-MM-DD in the organisation's time zone), and what to narrow to.
 */
export interface InsightFilters {
  range: string;
  from: string;
  to: string;
  topic: string;
  expert: string;
  consumer: string;
}

export type Route =
  /** `mine`: only what still waits for this reviewer's vote. */
  | { view: 'queue'; mine?: true }
  | { view: 'answers'; filters: AnswerFilters }
  | { view: 'experts' }
  | { view: 'insights'; filters: InsightFilters }
  | { view: 'requests'; filters: RequestFilters }
  | { view: 'request'; id: string };

/**
 * Hash routes (`#/`, `#/?mine=true`, `#/experts`, `#/requests?status=…&topic=…&consumer_id=…&q=…`, `#/requests/<id>`,
 * `#/answers?q=…&topic=…&status=…`, `#/insights?range=…&from=…&to=…&topic=…&expert=…&consumer=…`):
 * the static server only ever serves index.html, and a filtered history is a link one can share.
 */
export function parseRoute(hash: string): Route {
  const [path = '', search = ''] = hash.replace(/^#/, '').split('?');
  const request = /^\/requests\/([^/]+)$/.exec(path);
  if (request) return { view: 'request', id: decodeURIComponent(request[1]!) };
  if (path === '/experts') return { view: 'experts' };
  if (path === '/insights') {
    const query = new URLSearchParams(search);
    const get = (key: string) => query.get(key) ?? '';
    return { view: 'insights', filters: { range: get('range'), from: get('from'), to: get('to'), topic: get('topic'), expert: get('expert'), consumer: get('consumer') } };
  }
  if (path === '/answers') {
    const query = new URLSearchParams(search);
    const get = (key: string) => query.get(key) ?? '';
    return { view: 'answers', filters: { q: get('q'), topic: get('topic'), status: get('status') } };
  }
  if (path === '/requests') {
    const query = new URLSearchParams(search);
    const get = (key: string) => query.get(key) ?? '';
    return { view: 'requests', filters: { status: get('status'), topic: get('topic'), consumer_id: get('consumer_id'), q: get('q') } };
  }
  return new URLSearchParams(search).get('mine') === 'true' ? { view: 'queue', mine: true } : { view: 'queue' };
}

/** The hash of the queue, all of it or only what waits for this reviewer's vote. */
export function queueHash(mine: boolean): string {
  return mine ? '#/?mine=true' : '#/';
}

function withQuery(path: string, filters: object): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(filters) as Array<[string, string]>) if (value.trim()) query.set(key, value.trim());
  const search = query.toString();
  return `${path}${search ? `?${search}` : ''}`;
}

/** The hash of the Requests page with these filters (empty ones left out). */
export function requestsHash(filters: RequestFilters): string {
  return withQuery('#/requests', filters);
}

/** The hash of the Answers page with these filters (empty ones left out). */
export function answersHash(filters: AnswerFilters): string {
  return withQuery('#/answers', filters);
}


/** The hash of the Insights page with these filters (empty ones left out). */
export function insightsHash(filters: InsightFilters): string {
  return withQuery('#/insights', filters);
}
