import { useRequiredText } from './required-text.js';

export interface SendBackFormProps {
  id: string;
  expertName: string;
  /** The answer came from the library: sending it back asks an expert, and a note is optional. */
  reused: boolean;
  instructions: string;
  onInstructions: (text: string) => void;
  /** Called with the trimmed instructions (empty only for a library answer). */
  onSendBack: (instructions: string) => void;
  onCancel: () => void;
}

/** Sending an answer back asks the expert again with the reviewer's instructions (required unless reused). */
export function SendBackForm(props: SendBackFormProps) {
  const { id } = props;
  const { field, missing, submit, typed } = useRequiredText<HTMLTextAreaElement>(props.instructions, props.onSendBack, props.reused);
  return (
    <form class="actions" noValidate onSubmit={submit}>
      <div class="field">
        <label for={`instructions-${id}`}>
          {props.reused ? (
            <>
              Note for the expert <span class="muted">(optional; an expert is asked instead of reusing this answer)</span>
            </>
          ) : (
            <>
              Instructions for {props.expertName} <span class="muted">(required; they are asked again with these)</span>
            </>
          )}
        </label>
        <textarea
          id={`instructions-${id}`}
          ref={field}
          rows={3}
          value={props.instructions}
          onInput={(e) => {
            props.onInstructions(e.currentTarget.value);
            typed(e.currentTarget.value);
          }}
          aria-required="true"
          aria-invalid={missing ? 'true' : undefined}
          aria-describedby={missing ? `instructions-error-${id}` : undefined}
          maxLength={2000}
        />
        {missing ? (
          <p id={`instructions-error-${id}`} class="field-error" role="alert">
            Say what the expert should change or add: it is sent to them.
          </p>
        ) : null}
      </div>
      <div class="buttons">
        <button type="submit" class="primary">Send back</button>
        <button type="button" onClick={props.onCancel}>Cancel <kbd aria-hidden="true">Esc</kbd></button>
      </div>
    </form>
  );
}
