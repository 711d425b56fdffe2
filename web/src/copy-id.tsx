import { useEffect, useState } from 'preact/hooks';

/** Puts text on the clipboard: the Clipboard API where the page may use it, else a selected textarea. */
async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.append(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}

/** An id as selectable text with a Copy button beside it ("Copied" for a moment after a click). */
export function CopyId(props: { id: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 2_000);
    return () => clearTimeout(timer);
  }, [state]);
  return (
    <span class="copy-id">
      <code class="id">{props.id}</code>
      <button
        type="button"
        class="copy"
        aria-label={`Copy ${props.label} ${props.id}`}
        title={`Copy the ${props.label}`}
        onClick={async (event) => {
          event.stopPropagation();
          setState((await copyText(props.id)) ? 'copied' : 'failed');
        }}
      >
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Select and copy' : 'Copy'}
      </button>
      <span class="sr-only" role="status">{state === 'copied' ? `${props.label} copied` : ''}</span>
    </span>
  );
}
