import { describe, expect, it } from 'vitest';
import { SseParser } from '../../web/src/sse.js';

describe('SseParser', () => {
  it('parses named events and ignores comments (heartbeats)', () => {
    const parser = new SseParser();
    expect(parser.feed(': keep-alive\n\nevent: queue\ndata: []\n\n')).toEqual([{ event: 'queue', data: '[]' }]);
  });

  it('joins data lines and defaults the name to message', () => {
    expect(new SseParser().feed('data: a\ndata:b\n\n')).toEqual([{ event: 'message', data: 'a\nb' }]);
  });

  it('completes frames split anywhere across chunks, CRLF split included', () => {
    const parser = new SseParser();
    const text = 'event: queue\r\ndata: [{"id":"p1"}]\r\n\r\nevent: queue\rdata: []\r\r';
    const events = [];
    for (const ch of text) events.push(...parser.feed(ch));
    expect(events).toEqual([
      { event: 'queue', data: '[{"id":"p1"}]' },
      { event: 'queue', data: '[]' },
    ]);
  });

  it('does not emit an event without data, and resets the name after each frame', () => {
    const parser = new SseParser();
    expect(parser.feed('event: queue\n\ndata: x\n\n')).toEqual([{ event: 'message', data: 'x' }]);
  });
});
