/** What a key press asks the queue to do. */
export type Command = 'next' | 'prev' | 'accept' | 'reject' | 'note' | 'open' | 'mine' | 'help' | 'escape';

/** Where the key was pressed: a text field, a button or link (which own Enter and Space), or elsewhere. */
export type KeyTarget = 'field' | 'control' | 'other';

export interface KeyPress {
  key: string;
  ctrlKey?: boolean;
  metaKey?: boolean;
  altKey?: boolean;
  target: KeyTarget;
  /** A modal dialog is open: it handles its own keys. */
  dialogOpen: boolean;
}

/** The shortcuts, in the order the `?` overlay lists them. */
export const SHORTCUTS: ReadonlyArray<{ keys: string[]; does: string }> = [
  { keys: ['j'], does: 'Next proposal' },
  { keys: ['k'], does: 'Previous proposal' },
  { keys: ['a'], does: 'Accept the selected proposal (with the note, if you typed one)' },
  { keys: ['n'], does: 'Write a note, then Enter to accept' },
  { keys: ['r'], does: 'Reject: type the reason, then Enter' },
  { keys: ['o'], does: 'Open the request and its audit trail' },
  { keys: ['m'], does: 'Show only what waits for my vote, or everything again' },
  { keys: ['Esc'], does: 'Cancel, leave a field, or go back to the queue' },
  { keys: ['?'], does: 'Show these shortcuts' },
];

const LETTERS: Record<string, Command> = { j: 'next', k: 'prev', a: 'accept', r: 'reject', n: 'note', o: 'open', m: 'mine', '?': 'help' };

/**
 * Maps a key press to a queue command, or null to leave it to the browser. Letters typed into a field
 * are text, modified keys belong to the browser and the screen reader, and an open dialog keeps its
 * own keys (Escape included, which closes it natively).
 */
export function commandFor(press: KeyPress): Command | null {
  if (press.ctrlKey || press.metaKey || press.altKey || press.dialogOpen) return null;
  if (press.key === 'Escape') return 'escape';
  if (press.target === 'field') return null;
  return LETTERS[press.key] ?? null;
}

/** The id `delta` places from `selected` (clamped to the ends), or the first when nothing is selected. */
export function moveSelection(ids: readonly string[], selected: string | null, delta: number): string | null {
  if (ids.length === 0) return null;
  const at = selected === null ? -1 : ids.indexOf(selected);
  if (at < 0) return ids[0]!;
  return ids[Math.min(ids.length - 1, Math.max(0, at + delta))]!;
}

/**
 * After the list changed (a decision, or a live update): keep the selection when it is still there,
 * else take what now sits where it was (the next proposal), else the last one.
 */
export function keepSelection(before: readonly string[], after: readonly string[], selected: string | null): string | null {
  if (after.length === 0) return null;
  if (selected !== null && after.includes(selected)) return selected;
  if (selected === null) return after[0]!;
  const at = before.indexOf(selected);
  if (at < 0) return after[0]!;
  // The first id after the old position that survived, else the closest one before it.
  const next = before.slice(at + 1).find((id) => after.includes(id));
  if (next !== undefined) return next;
  const previous = before.slice(0, at).reverse().find((id) => after.includes(id));
  return previous ?? after[0]!;
}
