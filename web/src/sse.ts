/** One Server-Sent Event: its `event` name (default `message`) and its data lines joined by `\n`. */
export interface SseEvent {
  event: string;
  data: string;
}

/**
 * Incremental `text/event-stream` parser (the WHATWG rules the UI needs: `event`, `data`, comments,
 * any of CRLF/LF/CR line ends, frames split anywhere across chunks). The UI reads the stream with
 * `fetch` because EventSource cannot send the Authorization header.
 */
export class SseParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];
  private afterCr = false;

  /** Feeds decoded text; returns the events completed by it. */
  feed(text: string): SseEvent[] {
    this.buffer += text;
    // A CR that ended the previous chunk may have been the first half of a CRLF.
    if (this.afterCr && this.buffer !== '') {
      if (this.buffer.startsWith('\n')) this.buffer = this.buffer.slice(1);
      this.afterCr = false;
    }
    const events: SseEvent[] = [];
    for (;;) {
      const end = this.buffer.search(/\r\n|\r|\n/);
      if (end < 0) break;
      const line = this.buffer.slice(0, end);
      const crlf = this.buffer.startsWith('\r\n', end);
      this.buffer = this.buffer.slice(end + (crlf ? 2 : 1));
      if (!crlf && this.buffer === '' && text.endsWith('\r')) this.afterCr = true;
      const event = this.line(line);
      if (event) events.push(event);
    }
    return events;
  }

  private line(line: string): SseEvent | null {
    if (line === '') {
      const done = this.data.length > 0 ? { event: this.event || 'message', data: this.data.join('\n') } : null;
      this.event = '';
      this.data = [];
      return done;
    }
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    return null;
  }
}
