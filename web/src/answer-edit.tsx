import { structuredText } from './format.js';
import type { Proposal } from './wire.js';

export interface AnswerEditProps {
  proposal: Proposal;
  /** The structured form is the answer verbatim: there is no separate form to correct. */
  verbatim: boolean;
  /** The reviewer's edit of the answer (null: not editing). */
  edit: string | null;
  /** The structured form's edit as JSON text (null: not edited yet). */
  structured: string | null;
  /** The last accept found the structured edit not to be JSON. */
  structuredInvalid: boolean;
  onEdit: (text: string) => void;
  onStructured: (text: string) => void;
  onReset: () => void;
}

/** "Edit the answer before accepting": the reviewer's text (and structured form) to deliver instead, the expert's kept. */
export function AnswerEdit(props: AnswerEditProps) {
  const { proposal } = props;
  const id = proposal.id;
  if (props.edit === null) {
    return (
      <button type="button" class="link" onClick={() => props.onEdit(proposal.answer)}>
        Edit the answer before accepting
      </button>
    );
  }
  return (
    <div class="field edit-answer">
      <label for={`edit-${id}`}>
        Answer to deliver <span class="muted">(your edit; the expert's text above is kept)</span>
      </label>
      <textarea id={`edit-${id}`} rows={4} maxLength={4000} value={props.edit} onInput={(e) => props.onEdit(e.currentTarget.value)} />
      {props.verbatim ? null : (
        <>
          <label for={`structured-${id}`}>
            Structured form, corrected to match <span class="muted">(JSON; checked against the kind's schema)</span>
          </label>
          <textarea
            id={`structured-${id}`}
            rows={5}
            class="mono"
            value={props.structured ?? structuredText(proposal.structured)}
            onInput={(e) => props.onStructured(e.currentTarget.value)}
            aria-invalid={props.structuredInvalid ? 'true' : undefined}
          />
          {props.structuredInvalid ? <p class="field-error" role="alert">This is not valid JSON.</p> : null}
        </>
      )}
      <button type="button" class="link" onClick={props.onReset}>Reset to the expert's answer</button>
    </div>
  );
}
