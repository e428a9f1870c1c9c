/** One server-sent event (`event` defaults to "message"). */
export interface SseEvent {
  event: string;
  data: string;
  id: string | undefined;
  retry: number | undefined;
}

/**
 * Incremental `text/event-stream` parser (WHATWG HTML §9.2.6): lines end with CRLF, LF or CR;
 * `:` lines are comments (keep-alives) and ignored; `data` lines join with "\n"; an empty line
 * dispatches. An event whose data exceeds `maxEventBytes` characters throws (the stream is broken).
 * `lastEventId` persists across events as the spec says; events with empty data are not dispatched
 * but still update `id` and `retry` (priming events).
 */
export class SseParser {
  #buffer = '';
  #data: string[] = [];
  #dataSize = 0;
  #event = '';
  #sawCr = false;
  lastEventId: string | undefined;
  retry: number | undefined;
  readonly #decoder = new TextDecoder('utf-8');

  constructor(private readonly maxEventBytes: number) {}

  /** Feeds bytes; returns the events completed by them. */
  push(chunk: Uint8Array): SseEvent[] {
    return this.#text(this.#decoder.decode(chunk, { stream: true }));
  }

  /** Ends the stream; an unterminated event is discarded, as the spec says. */
  end(): SseEvent[] {
    const events = this.#text(this.#decoder.decode());
    this.#buffer = '';
    return events;
  }

  #text(text: string): SseEvent[] {
    const events: SseEvent[] = [];
    let input = this.#buffer + text;
    this.#buffer = '';
    if (this.#sawCr && input.startsWith('\n')) input = input.slice(1);
    this.#sawCr = false;
    let start = 0;
    for (let i = 0; i < input.length; i++) {
      const c = input.charCodeAt(i);
      if (c !== 0x0a && c !== 0x0d) continue;
      this.#line(input.slice(start, i), events);
      if (c === 0x0d) {
        if (i + 1 < input.length) {
          if (input.charCodeAt(i + 1) === 0x0a) i++;
        } else this.#sawCr = true;
      }
      start = i + 1;
    }
    this.#buffer = input.slice(start);
    if (this.#buffer.length > this.maxEventBytes) throw new RangeError('an SSE line exceeds the size limit');
    return events;
  }

  #line(line: string, events: SseEvent[]): void {
    if (line === '') {
      const data = this.#data.join('\n');
      if (data !== '') {
        events.push({
          event: this.#event === '' ? 'message' : this.#event,
          data,
          id: this.lastEventId,
          retry: this.retry,
        });
      }
      this.#data = [];
      this.#dataSize = 0;
      this.#event = '';
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.#dataSize += value.length + 1;
        if (this.#dataSize > this.maxEventBytes) throw new RangeError('an SSE event exceeds the size limit');
        this.#data.push(value);
        break;
      case 'event':
        this.#event = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.lastEventId = value;
        break;
      case 'retry':
        if (/^[0-9]+$/.test(value)) this.retry = Number(value);
        break;
    }
  }
}
