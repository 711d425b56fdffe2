import { SseParser, type SseEvent } from '../../web/src/sse.js';

export type { SseEvent };

/** Reads a live SSE response event by event. */
export function eventReader(body: ReadableStream<Uint8Array>) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new SseParser();
  const ready: SseEvent[] = [];
  return {
    async next(): Promise<SseEvent | null> {
      while (ready.length === 0) {
        const { value, done } = await reader.read();
        if (done) return null;
        ready.push(...parser.feed(value));
      }
      return ready.shift()!;
    },
  };
}
