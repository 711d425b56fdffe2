import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, Unauthorized, type Api } from './api.js';
import { parseRoute, type Route } from './routes.js';
import type { Proposal, QueueItem } from './wire.js';

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}

/** The current time, refreshed every `everyMs`, so "5 min ago" stays true on an idle page. */
export function useNow(everyMs = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

export type Connection = 'connecting' | 'live' | 'reconnecting';

export interface LiveQueue {
  items: QueueItem[] | null;
  connection: Connection;
  /** When the server stopped answering at all (ms), or null while it answers. */
  unreachableSince: number | null;
  /** Takes a proposal off the screen now; the server's next queue will agree once the decision lands. */
  hide(id: string): void;
  /** Puts it back (the decision failed, or it still waits for other votes) and re-reads the queue. */
  unhide(id: string): void;
  /** Shows what a decision answered of a proposal still pending (its new votes) until the server's next queue. */
  update(proposal: Proposal): void;
}

/**
 * The pending queue (with `mine`, only what waits for this reviewer's vote), kept current by the
 * server's event stream; while the stream is down it re-reads `GET /queue` at most 5 s apart and
 * reconnects. A 401 anywhere calls `onUnauthorized`.
 */
export function useLiveQueue(api: Api, onUnauthorized: () => void, mine = false): LiveQueue {
  const [items, setItems] = useState<QueueItem[] | null>(null);
  const [connection, setConnection] = useState<Connection>('connecting');
  const [unreachableSince, setUnreachableSince] = useState<number | null>(null);
  const hidden = useRef(new Set<string>());
  const latest = useRef<QueueItem[]>([]);

  const show = (list: QueueItem[]) => {
    latest.current = list;
    setItems(list.filter((item) => !hidden.current.has(item.proposal.id)));
  };

  useEffect(() => {
    const stop = new AbortController();
    // Another filter is another queue: nothing is shown of it until the server says what it holds.
    latest.current = [];
    setItems(null);
    const run = async () => {
      for (let failures = 0; !stop.signal.aborted; ) {
        try {
          await api.streamQueue((list) => {
            failures = 0;
            setConnection('live');
            setUnreachableSince(null);
            show(list);
          }, stop.signal, { mine });
        } catch (error) {
          if (error instanceof Unauthorized) return onUnauthorized();
        }
        if (stop.signal.aborted) return;
        setConnection('reconnecting');
        failures++;
        await pause(Math.min(5_000, 1_000 * failures), stop.signal);
        if (stop.signal.aborted) return;
        try {
          show(await api.queue(mine));
          setUnreachableSince(null);
        } catch (error) {
          if (error instanceof Unauthorized) return onUnauthorized();
          // Neither the stream nor a plain read got through: the server (or the network) is down.
          if (!(error instanceof ApiError) || error.status >= 502) setUnreachableSince((since) => since ?? Date.now());
        }
      }
    };
    void run();
    return () => stop.abort();
  }, [api, onUnauthorized, mine]);

  return {
    items,
    connection,
    unreachableSince,
    hide(id) {
      hidden.current.add(id);
      setItems((current) => current && current.filter((item) => item.proposal.id !== id));
    },
    unhide(id) {
      hidden.current.delete(id);
      show(latest.current);
      api.queue(mine).then(show, (error: unknown) => {
        if (error instanceof Unauthorized) onUnauthorized();
      });
    },
    update(proposal) {
      const known = latest.current.find((item) => item.proposal.id === proposal.id);
      // The stream may already have shown later votes than this answer carries.
      if (!known || (known.proposal.votes?.length ?? 0) > (proposal.votes?.length ?? 0)) return;
      show(latest.current.map((item) => (item === known ? { ...item, proposal: { ...item.proposal, ...proposal } } : item)));
    },
  };
}
