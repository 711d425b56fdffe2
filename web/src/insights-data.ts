import { useEffect, useState } from 'preact/hooks';
import { Unauthorized, type Api } from './api.js';
import { windowOf } from './insight-window.js';
import { insightsHash, type InsightFilters } from './routes.js';
import type { Expert, InsightsQuery, InsightsView } from './wire.js';

/** What the Insights page shows: the same window and filters read by week, by topic and by expert. */
export interface InsightsData {
  week: InsightsView;
  topic: InsightsView;
  expert: InsightsView;
}

export interface InsightsState {
  data: InsightsData | null;
  /** True while the figures of the current filters are read (the last ones stay shown meanwhile). */
  loading: boolean;
  error: string | null;
}

// The organisation's time zone, once the server has named it: days typed in the filters are its days.
let knownZone: string | null = null;

/** The query the filters make, for one grouping, or a message saying what is wrong with them. */
export function insightsQuery(filters: InsightFilters, now: number, zone: string): { from: string; to: string; narrow: InsightsQuery } | { error: string } {
  const window = windowOf(filters, now, zone);
  if ('error' in window) return window;
  const narrow: InsightsQuery = { from: window.from, to: window.to };
  for (const key of ['topic', 'expert', 'consumer'] as const) if (filters[key].trim()) narrow[key] = filters[key].trim();
  return { ...window, narrow };
}

/** Reads the figures of the filters in the URL, again whenever they change. A 401 calls `onUnauthorized`. */
export function useInsights(api: Api, filters: InsightFilters, onUnauthorized: () => void): InsightsState {
  const [state, setState] = useState<InsightsState>({ data: null, loading: true, error: null });
  const key = insightsHash(filters);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    const run = async (zone: string, again: boolean): Promise<void> => {
      const query = insightsQuery(filters, Date.now(), zone);
      if ('error' in query) {
        setState({ data: null, loading: false, error: query.error });
        return;
      }
      const [week, topic, expert] = await Promise.all(
        (['week', 'topic', 'expert'] as const).map((group_by) => api.insights({ ...query.narrow, group_by })),
      );
      if (!live) return;
      knownZone = week!.time_zone;
      // Days were read in a guessed zone: read them again as the organisation's days.
      if (week!.time_zone !== zone && (filters.from || filters.to) && !again) return run(week!.time_zone, true);
      setState({ data: { week: week!, topic: topic!, expert: expert! }, loading: false, error: null });
    };
    run(knownZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone, false).catch((e: unknown) => {
      if (!live) return;
      if (e instanceof Unauthorized) return onUnauthorized();
      setState({ data: null, loading: false, error: e instanceof Error ? e.message : String(e) });
    });
    return () => {
      live = false;
    };
  }, [api, key]);
  return state;
}

/** The registered experts (for names and the expert filter); empty when they cannot be read. */
export function useExperts(api: Api): Expert[] {
  const [experts, setExperts] = useState<Expert[]>([]);
  useEffect(() => {
    api.experts().then(setExperts, () => setExperts([]));
  }, [api]);
  return experts;
}
