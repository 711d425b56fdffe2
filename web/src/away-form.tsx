import { useState } from 'preact/hooks';
import type { Expert } from './wire.js';

export interface AwayChoice {
  until: string;
  delegate_to: string | null;
  note: string | null;
}

/**
 * The inline form that sets an expert away: until when (a date and time in the reviewer's own time
 * zone, sent as an instant), who stands in (any other expert, or nobody), and a note.
 */
export function AwayForm(props: { expert: Expert; experts: Expert[]; busy: boolean; onSave: (choice: AwayChoice) => void; onCancel: () => void }) {
  const { expert } = props;
  const [until, setUntil] = useState(defaultUntil());
  const [delegate, setDelegate] = useState('');
  const [note, setNote] = useState('');
  const instant = Date.parse(until);
  const valid = Number.isFinite(instant) && instant > Date.now();
  const submit = (event: Event) => {
    event.preventDefault();
    if (!valid) return;
    props.onSave({ until: new Date(instant).toISOString(), delegate_to: delegate || null, note: note.trim() || null });
  };
  return (
    <form class="away-form" aria-label={`Set ${expert.name} away`} onSubmit={submit}>
      <label>
        Back on
        <input type="datetime-local" value={until} required onInput={(e) => setUntil((e.target as HTMLInputElement).value)} />
      </label>
      <label>
        Delegate
        <select value={delegate} onChange={(e) => setDelegate((e.target as HTMLSelectElement).value)}>
          <option value="">Nobody (escalation chain)</option>
          {props.experts.filter((e) => e.id !== expert.id).map((e) => <option key={e.id} value={e.id}>{e.name}</option>)}
        </select>
      </label>
      <label>
        Note
        <input type="text" value={note} maxLength={500} placeholder="On holiday" onInput={(e) => setNote((e.target as HTMLInputElement).value)} />
      </label>
      <span class="away-actions">
        <button type="submit" class="small" disabled={props.busy || !valid}>Set away</button>
        <button type="button" class="small" onClick={props.onCancel}>Cancel</button>
      </span>
      {expert.open_asks ? <span class="muted small-note">{`${expert.open_asks} open question${expert.open_asks === 1 ? '' : 's'} will be passed on.`}</span> : null}
    </form>
  );
}

/** A week from now at 09:00, local time, as a `datetime-local` value. */
function defaultUntil(): string {
  const d = new Date(Date.now() + 7 * 86_400_000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T09:00`;
}
