import { useRef, useState } from 'preact/hooks';

const NAME_KEY = 'expertq.decided_by';

export interface ReviewerName {
  /** The name decisions are recorded with ('' until known). */
  name: string;
  /** The name dialog is open. */
  asking: boolean;
  /** Opens the dialog to change the name. */
  change: () => void;
  /** The reviewer's name for `decided_by`: remembered, else asked for once (null: the reviewer cancelled). */
  reviewer: () => Promise<string | null>;
  /** The dialog closed with a name, or without one (null). */
  done: (value: string | null) => void;
}

/**
 * Who decides. A named token or a signed-in person decides as itself (the server records that name);
 * only the unnamed admin token asks, once, and this browser remembers the answer.
 */
export function useReviewerName(tokenName: string | null | undefined): ReviewerName {
  const [name, setName] = useState(() => tokenName ?? localStorage.getItem(NAME_KEY) ?? '');
  const [asking, setAsking] = useState(false);
  const waiter = useRef<((name: string | null) => void) | null>(null);
  return {
    name,
    asking,
    change: () => setAsking(true),
    reviewer() {
      if (name) return Promise.resolve(name);
      setAsking(true);
      return new Promise((resolve) => (waiter.current = resolve));
    },
    done(value) {
      setAsking(false);
      if (value) {
        localStorage.setItem(NAME_KEY, value);
        setName(value);
      }
      waiter.current?.(value);
      waiter.current = null;
    },
  };
}
