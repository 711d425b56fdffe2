import { useCallback, useEffect, useState } from 'preact/hooks';

export type Tone = 'info' | 'error';
export type Announce = (text: string, tone?: Tone) => void;
export interface FlashMessage {
  text: string;
  tone: Tone;
}

/** The last thing the page announced, gone after 8 s. */
export function useFlash(): [FlashMessage | null, Announce] {
  const [flash, setFlash] = useState<FlashMessage | null>(null);
  const announce = useCallback<Announce>((text, tone = 'info') => setFlash({ text, tone }), []);
  useEffect(() => {
    if (!flash) return;
    const timer = setTimeout(() => setFlash(null), 8_000);
    return () => clearTimeout(timer);
  }, [flash]);
  return [flash, announce];
}

/** A live region that is always there (so screen readers hear what lands in it); errors interrupt. */
export function Flash({ flash }: { flash: FlashMessage | null }) {
  return (
    <div class={`flash${flash ? ` flash-${flash.tone}` : ''}`} role={flash?.tone === 'error' ? 'alert' : 'status'} aria-live={flash?.tone === 'error' ? 'assertive' : 'polite'}>
      {flash?.text ?? ''}
    </div>
  );
}
