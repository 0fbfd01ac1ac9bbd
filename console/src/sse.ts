// A Server-Sent Events parser for a fetch() stream (EventSource cannot send an
// Authorization header). Pure: feed it decoded text, it returns the events
// completed so far. Follows the WHATWG event-stream interpretation rules, with
// one deliberate difference: an event that names a type is dispatched even
// when it carries no data line, so a bare `event: graph` still refreshes.

export interface SSEEvent {
  /** The event type; "message" when the block named none. */
  type: string;
  /** The data lines joined with "\n". */
  data: string;
  /** The last event id seen on the stream ("" when none). */
  id: string;
}

export interface SSEChunk {
  events: SSEEvent[];
  /** Comment lines (": keep-alive") seen, without the leading colon. */
  comments: string[];
  /** A retry: value in milliseconds, when the chunk held one. */
  retry?: number;
}

export class SSEParser {
  private buf = '';
  private data: string[] = [];
  private hasData = false;
  private type = '';
  private lastId = '';
  private sawCR = false;
  private first = true;

  /** feed parses the next piece of the stream. */
  feed(text: string): SSEChunk {
    const out: SSEChunk = { events: [], comments: [] };
    if (this.first && text.length > 0) {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    // A CRLF split across two chunks: drop the LF that ends the CR's line.
    if (this.sawCR && text.startsWith('\n')) text = text.slice(1);
    this.sawCR = false;
    this.buf += text;

    let start = 0;
    for (;;) {
      let i = start;
      const n = this.buf.length;
      while (i < n) {
        const c = this.buf.charCodeAt(i);
        if (c === 10 || c === 13) break;
        i++;
      }
      if (i >= n) break; // no complete line left
      const line = this.buf.slice(start, i);
      if (this.buf.charCodeAt(i) === 13) {
        if (i + 1 < n) {
          start = this.buf.charCodeAt(i + 1) === 10 ? i + 2 : i + 1;
        } else {
          this.sawCR = true;
          start = i + 1;
        }
      } else {
        start = i + 1;
      }
      this.line(line, out);
    }
    this.buf = this.buf.slice(start);
    return out;
  }

  /** end discards an unterminated event, as the standard says. */
  end(): void {
    this.buf = '';
    this.reset();
  }

  private reset(): void {
    this.data = [];
    this.hasData = false;
    this.type = '';
  }

  private line(line: string, out: SSEChunk): void {
    if (line === '') {
      if (this.hasData || this.type !== '') {
        out.events.push({ type: this.type || 'message', data: this.data.join('\n'), id: this.lastId });
      }
      this.reset();
      return;
    }
    if (line.charCodeAt(0) === 58 /* : */) {
      out.comments.push(line.slice(1).replace(/^ /, ''));
      return;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.type = value;
        break;
      case 'data':
        this.data.push(value);
        this.hasData = true;
        break;
      case 'id':
        if (!value.includes('\0')) this.lastId = value;
        break;
      case 'retry':
        if (/^[0-9]+$/.test(value)) out.retry = Number(value);
        break;
      default:
        break; // unknown fields are ignored
    }
  }
}
