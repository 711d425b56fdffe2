import { useEffect, useState } from 'preact/hooks';
import type { InsightsView } from './insights-view.js';

type Props = Parameters<typeof InsightsView>[0];

/** Kept once loaded: going back to the page again shows it at once. */
let loaded: typeof InsightsView | null = null;

/**
 * The Insights page, its code (and the chart library, most of the page's script) fetched the first
 * time it is opened: reviewers who never open it do not download it.
 */
export function LazyInsightsView(props: Props) {
  const [View, setView] = useState(() => loaded);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    if (View) return;
    import('./insights-view.js').then(
      (module) => {
        loaded = module.InsightsView;
        setView(() => module.InsightsView);
      },
      () => setFailed(true),
    );
  }, [View]);
  if (failed) return <p role="alert">The Insights page could not be loaded (the server was unreachable or has been upgraded): reload the page to try again.</p>;
  if (!View) return <p class="muted" aria-busy="true">Loading…</p>;
  return <View {...props} />;
}
