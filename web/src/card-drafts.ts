import { createContext } from 'preact';
import { useContext, useState } from 'preact/hooks';

/** What a reviewer has typed on one card and not yet sent. */
export interface CardDrafts {
  note: string;
  reason: string;
  instructions: string;
  /** The edit of the answer (null: not editing). */
  edit: string | null;
  /** The structured form's edit as JSON text (null: not edited yet). */
  structured: string | null;
}

const EMPTY: CardDrafts = { note: '', reason: '', instructions: '', edit: null, structured: null };

/**
 * Where a card's drafts wait while the card is off the screen: a decision hides the card at once and
 * brings it back if the call fails, and the reviewer's text must come back with it. The queue holds one
 * shelf for its life; a card reads its drafts from it when it mounts and writes every change through.
 */
export type DraftShelf = Map<string, CardDrafts>;

export const DraftShelfContext = createContext<DraftShelf>(new Map());

/** The card's drafts, kept in its own state and mirrored on the shelf under the proposal's id. */
export function useCardDrafts(id: string): [CardDrafts, <K extends keyof CardDrafts>(key: K, value: CardDrafts[K]) => void] {
  const shelf = useContext(DraftShelfContext);
  const [drafts, setDrafts] = useState<CardDrafts>(() => shelf.get(id) ?? EMPTY);
  const set = <K extends keyof CardDrafts>(key: K, value: CardDrafts[K]) =>
    setDrafts((current) => {
      const next = { ...current, [key]: value };
      shelf.set(id, next);
      return next;
    });
  return [drafts, set];
}
