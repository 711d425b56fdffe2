import type { Api } from './api.js';
import { dayText } from './insight-format.js';
import { useExperts, useInsights } from './insights-data.js';
import { InsightFiltersForm } from './insights-filters.js';
import { Headline, InsightSections } from './insights-sections.js';
import { insightsHash, type InsightFilters } from './routes.js';
import type { InsightsView as Insights } from './wire.js';

/** A window's days as YYYY-MM-DD in the organisation's zone, both included (`to` is exclusive). */
function daysOf(view: Insights): { from: string; to: string } {
  const day = (ms: number) => new Date(ms).toLocaleDateString('en-CA', { timeZone: view.time_zone });
  return { from: day(Date.parse(view.from)), to: day(Date.parse(view.to) - 1) };
}

/** True when nothing at all happened in the window: no request submitted, asked or decided. */
function nothingIn(view: Insights): boolean {
  const t = view.total;
  return t.requests.submitted === 0 && t.asks === 0 && t.proposals === 0 && t.proposal_to_decision.count === 0;
}

/**
 * The Insights page: what the service did in a window, for reviewers and admins. Requests per week by
 * outcome, times to answer and to decide, top topics, each expert's load, library reuse; each chart
 * has its numbers in a table, and every table downloads as CSV. The filters live in the URL.
 */
export function InsightsView(props: { api: Api; filters: InsightFilters; onUnauthorized: () => void }) {
  const { api, filters } = props;
  const state = useInsights(api, filters, props.onUnauthorized);
  const experts = useExperts(api);
  const data = state.data;
  const nameOf = (id: string) => experts.find((e) => e.id === id)?.name ?? id;
  const days = data ? daysOf(data.week) : null;
  const narrowed = [filters.topic && `topic ${filters.topic}`, filters.expert && `expert ${nameOf(filters.expert)}`, filters.consumer && `consumer ${filters.consumer}`].filter(Boolean).join(', ');

  return (
    <section class="insights-view" aria-labelledby="insights-title" aria-busy={state.loading}>
      <div class="view-head">
        <h1 id="insights-title">Insights</h1>
        <p class="view-sub">
          {data ? (
            <span class="insight-window">
              <time dateTime={data.week.from}>{dayText(data.week.from, data.week.time_zone)}</time> to{' '}
              <time dateTime={data.week.to}>{dayText(new Date(Date.parse(data.week.to) - 1).toISOString(), data.week.time_zone)}</time>
              {' '}({data.week.time_zone}){narrowed ? `; ${narrowed}` : ''}
            </span>
          ) : 'What expertq did, at a glance'}
        </p>
      </div>
      <InsightFiltersForm
        filters={filters}
        experts={experts}
        topics={data ? data.topic.groups.map((g) => g.key) : []}
        shownDays={days}
        onApply={(next) => (location.hash = insightsHash(next))}
      />
      {state.error ? <p class="alert" role="alert">Could not load the insights: {state.error}</p> : null}
      <p class="sr-only" role="status">{state.loading ? 'Loading the insights…' : data ? `Insights of ${data.week.total.requests.submitted} requests` : ''}</p>
      {state.loading && !data ? <p class="muted">Loading…</p> : null}
      {data && !state.error ? (
        nothingIn(data.week) ? (
          <div class="empty card">
            <h2>No requests in this window</h2>
            <p class="muted">Nothing was submitted, asked or decided{narrowed ? ` for ${narrowed}` : ''} in these days. Choose a longer range or fewer filters.</p>
          </div>
        ) : (
          <>
            <Headline total={data.week.total} />
            <InsightSections data={data} nameOf={nameOf} fileSuffix={days ? `${days.from}-to-${days.to}` : 'window'} />
          </>
        )
      ) : null}
    </section>
  );
}
