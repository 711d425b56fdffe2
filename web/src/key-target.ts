/** What kind of element a key press came from (text fields keep their letters). */
export function keyTarget(target: EventTarget | null): 'field' | 'control' | 'other' {
  if (!(target instanceof HTMLElement)) return 'other';
  if (target.isContentEditable || target.matches('input, textarea, select')) return 'field';
  if (target.matches('button, a[href], summary')) return 'control';
  return 'other';
}

export const dialogOpen = () => document.querySelector('dialog[open]') !== null;

export const focusById = (id: string) => document.getElementById(id)?.focus();
