import { useLayoutEffect, useRef, useState } from 'preact/hooks';

/**
 * A form's one text field that must not be left empty (unless `optional`): it has focus as soon as the
 * form opens (a layout effect, so typing can start before the next paint); submitting it empty marks
 * it missing and puts focus back; typing anything clears the mark. `done` gets the trimmed text.
 */
export function useRequiredText<E extends HTMLInputElement | HTMLTextAreaElement>(text: string, done: (trimmed: string) => void, optional = false) {
  const [missing, setMissing] = useState(false);
  const field = useRef<E>(null);
  useLayoutEffect(() => field.current?.focus(), []);
  const submit = (event: Event) => {
    event.preventDefault();
    const trimmed = text.trim();
    if (!trimmed && !optional) {
      setMissing(true);
      field.current?.focus();
      return;
    }
    setMissing(false);
    done(trimmed);
  };
  const typed = (value: string) => {
    if (value.trim()) setMissing(false);
  };
  return { field, missing, submit, typed };
}
