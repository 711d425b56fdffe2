export interface AcceptFormProps {
  id: string;
  note: string;
  onNote: (text: string) => void;
  /** The reviewer's edit changes the answer: the button says so. */
  edited: boolean;
  onAccept: () => void;
  onStartReject: () => void;
  onStartReturn: () => void;
}

/** The card's first choice: accept (with an optional note), or open the reject or send-back form. */
export function AcceptForm(props: AcceptFormProps) {
  const { id } = props;
  return (
    <form
      class="actions"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        props.onAccept();
      }}
    >
      <div class="field">
        <label for={`note-${id}`}>Note <span class="muted">(optional, kept with the decision)</span></label>
        <input id={`note-${id}`} value={props.note} onInput={(e) => props.onNote(e.currentTarget.value)} autoComplete="off" maxLength={4000} />
      </div>
      <div class="buttons">
        <button type="submit" class="success" aria-keyshortcuts="a">
          {props.edited ? 'Accept edited' : 'Accept'} <kbd aria-hidden="true">a</kbd>
        </button>
        <button type="button" class="danger-outline" aria-keyshortcuts="r" onClick={props.onStartReject}>
          Reject… <kbd aria-hidden="true">r</kbd>
        </button>
        <button type="button" onClick={props.onStartReturn}>Send back…</button>
      </div>
    </form>
  );
}
