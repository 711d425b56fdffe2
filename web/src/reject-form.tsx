import { useRequiredText } from './required-text.js';

export interface RejectFormProps {
  id: string;
  reason: string;
  onReason: (text: string) => void;
  /** Called with the trimmed reason; never with an empty one. */
  onReject: (reason: string) => void;
  onCancel: () => void;
}

/** Rejecting needs a reason (it is sent to the consumer); the field has focus as soon as the form opens. */
export function RejectForm(props: RejectFormProps) {
  const { id } = props;
  const { field, missing, submit, typed } = useRequiredText<HTMLInputElement>(props.reason, props.onReject);
  return (
    <form class="actions" noValidate onSubmit={submit}>
      <div class="field">
        <label for={`reason-${id}`}>Reason for rejecting <span class="muted">(required, sent to the consumer)</span></label>
        <input
          id={`reason-${id}`}
          ref={field}
          value={props.reason}
          onInput={(e) => {
            props.onReason(e.currentTarget.value);
            typed(e.currentTarget.value);
          }}
          aria-required="true"
          aria-invalid={missing ? 'true' : undefined}
          aria-describedby={missing ? `reason-error-${id}` : undefined}
          autoComplete="off"
          maxLength={4000}
        />
        {missing ? (
          <p id={`reason-error-${id}`} class="field-error" role="alert">
            A reason is required to reject: it is sent to the consumer.
          </p>
        ) : null}
      </div>
      <div class="buttons">
        <button type="submit" class="danger">Reject</button>
        <button type="button" onClick={props.onCancel}>Cancel <kbd aria-hidden="true">Esc</kbd></button>
      </div>
    </form>
  );
}
