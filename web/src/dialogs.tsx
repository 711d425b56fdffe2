import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { SHORTCUTS } from './keys.js';

/** A native modal `<dialog>`: focus moves into it, the page behind is inert, Escape closes it. */
function Modal(props: { open: boolean; labelledBy: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  // Layout effect: the dialog is open (and focused) before the next key press is handled.
  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) dialog.showModal();
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  return (
    <dialog ref={ref} class="modal" aria-labelledby={props.labelledBy} onClose={props.onClose}>
      {props.open ? props.children : null}
    </dialog>
  );
}

export function ShortcutsDialog(props: { open: boolean; onClose: () => void }) {
  return (
    <Modal open={props.open} labelledBy="shortcuts-title" onClose={props.onClose}>
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      <table class="shortcuts">
        <caption class="sr-only">Keys and what they do in the review queue</caption>
        <tbody>
          {SHORTCUTS.map((s) => (
            <tr key={s.keys.join()}>
              <th scope="row">{s.keys.map((k) => <kbd key={k}>{k}</kbd>)}</th>
              <td>{s.does}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <form method="dialog" class="modal-actions">
        <button type="submit" class="primary" autofocus>Close</button>
      </form>
    </Modal>
  );
}

/** Asks once for the name recorded with every decision (`decided_by`); the page remembers it. */
export function NameDialog(props: { open: boolean; initial: string; onDone: (name: string | null) => void }) {
  const [name, setName] = useState(props.initial);
  const [error, setError] = useState<string | null>(null);
  useLayoutEffect(() => {
    if (props.open) {
      setName(props.initial);
      setError(null);
    }
  }, [props.open, props.initial]);
  const submit = (event: Event) => {
    event.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) return setError('Enter your name: it is recorded with each decision.');
    props.onDone(trimmed.slice(0, 200));
  };
  return (
    <Modal open={props.open} labelledBy="name-title" onClose={() => props.onDone(null)}>
      <form onSubmit={submit} noValidate>
        <h2 id="name-title">Who is reviewing?</h2>
        <p class="muted">Your name is recorded with every accept and reject (as <code>decided_by</code>). This browser remembers it.</p>
        <label for="decided-by">Your name</label>
        <input
          id="decided-by"
          name="decided_by"
          autoComplete="name"
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={error ? 'decided-by-error' : undefined}
          autofocus
        />
        {error ? <p id="decided-by-error" class="field-error" role="alert">{error}</p> : null}
        <div class="modal-actions">
          <button type="button" onClick={() => props.onDone(null)}>Cancel</button>
          <button type="submit" class="primary">Continue</button>
        </div>
      </form>
    </Modal>
  );
}
