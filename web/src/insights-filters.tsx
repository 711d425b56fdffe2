import { useEffect, useState } from 'preact/hooks';
import { RANGES } from './insight-window.js';
import { insightsHash, type InsightFilters } from './routes.js';

const CUSTOM = 'custom';
const NONE: InsightFilters = { range: '', from: '', to: '', topic: '', expert: '', consumer: '' };

/**
 * The Insights page's filters. A preset range and an expert apply as soon as they are chosen; days,
 * topic and consumer apply with "Show" (or Enter). Choosing "Custom days" fills in the days shown now.
 */
export function InsightFiltersForm(props: {
  filters: InsightFilters;
  experts: ReadonlyArray<{ id: string; name: string }>;
  topics: readonly string[];
  /** The days the figures now cover (YYYY-MM-DD, both included), for "Custom days". */
  shownDays: { from: string; to: string } | null;
  onApply: (filters: InsightFilters) => void;
}) {
  const { filters, onApply } = props;
  const [draft, setDraft] = useState(filters);
  useEffect(() => setDraft(filters), [insightsHash(filters)]);
  const custom = draft.range === CUSTOM || Boolean(draft.from || draft.to);

  const chooseRange = (value: string) => {
    if (value === CUSTOM) setDraft((d) => ({ ...d, range: CUSTOM, from: d.from || props.shownDays?.from || '', to: d.to || props.shownDays?.to || '' }));
    else onApply({ ...draft, range: value === RANGES[0]!.value ? '' : value, from: '', to: '' });
  };
  const text = (name: 'from' | 'to' | 'topic' | 'consumer') => ({
    id: `insights-${name}`,
    value: draft[name],
    onInput: (e: Event) => setDraft((d) => ({ ...d, [name]: (e.currentTarget as HTMLInputElement).value })),
  });
  const submit = (event: Event) => {
    event.preventDefault();
    onApply({ ...draft, range: draft.from || draft.to ? '' : draft.range === CUSTOM ? '' : draft.range });
  };
  const experts = [...props.experts];
  if (filters.expert && !experts.some((e) => e.id === filters.expert)) experts.push({ id: filters.expert, name: filters.expert });

  return (
    <form class="card filters insight-filters" role="search" aria-label="Insights filters" onSubmit={submit}>
      <div class="field">
        <label for="insights-range">Range</label>
        <select id="insights-range" value={custom ? CUSTOM : draft.range || RANGES[0]!.value} onChange={(e) => chooseRange(e.currentTarget.value)}>
          {RANGES.map((r) => <option key={r.value} value={r.value}>{r.label}</option>)}
          <option value={CUSTOM}>Custom days</option>
        </select>
      </div>
      {custom ? (
        <>
          <div class="field">
            <label for="insights-from">From</label>
            <input type="date" required {...text('from')} />
          </div>
          <div class="field">
            <label for="insights-to">To <span class="muted">(included)</span></label>
            <input type="date" {...text('to')} />
          </div>
        </>
      ) : null}
      <div class="field">
        <label for="insights-topic">Topic</label>
        <input list="insights-topics" maxLength={200} {...text('topic')} />
        <datalist id="insights-topics">{props.topics.map((t) => <option key={t} value={t} />)}</datalist>
      </div>
      <div class="field">
        <label for="insights-expert">Expert</label>
        <select id="insights-expert" value={draft.expert} onChange={(e) => onApply({ ...draft, range: custom ? '' : draft.range, expert: e.currentTarget.value })}>
          <option value="">All experts</option>
          {experts.map((e) => <option key={e.id} value={e.id}>{e.name}</option>)}
        </select>
      </div>
      <div class="field">
        <label for="insights-consumer">Consumer</label>
        <input maxLength={200} {...text('consumer')} />
      </div>
      <div class="buttons">
        <button type="submit" class="primary">Show</button>
        <button type="button" onClick={() => onApply(NONE)}>Clear</button>
      </div>
    </form>
  );
}
