import { describe, expect, it } from 'vitest';
import { SSEParser } from '../src/sse';

function all(chunks: string[]) {
  const p = new SSEParser();
  const events = [];
  const comments = [];
  for (const c of chunks) {
    const r = p.feed(c);
    events.push(...r.events);
    comments.push(...r.comments);
  }
  return { events, comments };
}

describe('SSEParser', () => {
  it('parses a named event with data', () => {
    const { events } = all(['event: graph\ndata: {"version":3}\n\n']);
    expect(events).toEqual([{ type: 'graph', data: '{"version":3}', id: '' }]);
  });

  it('defaults the type to message', () => {
    expect(all(['data: x\n\n']).events).toEqual([{ type: 'message', data: 'x', id: '' }]);
  });

  it('joins data lines with newlines', () => {
    expect(all(['data: a\ndata: b\ndata\n\n']).events[0]!.data).toBe('a\nb\n');
  });

  it('reports comments and dispatches nothing for them', () => {
    const r = all([': keep-alive\n\n', ':x\n']);
    expect(r.events).toEqual([]);
    expect(r.comments).toEqual(['keep-alive', 'x']);
  });

  it('waits for the blank line before dispatching', () => {
    const p = new SSEParser();
    expect(p.feed('event: graph\ndata: 1\n').events).toEqual([]);
    expect(p.feed('\n').events).toHaveLength(1);
  });

  it('handles events split anywhere across chunks', () => {
    const text = 'event: graph\ndata: hello\n\nevent: diagnostic\ndata: {"a":1}\n\n';
    for (let i = 1; i < text.length; i++) {
      const { events } = all([text.slice(0, i), text.slice(i)]);
      expect(events.map((e) => e.type)).toEqual(['graph', 'diagnostic']);
      expect(events[1]!.data).toBe('{"a":1}');
    }
  });

  it('accepts CRLF and CR line endings, even split between chunks', () => {
    expect(all(['event: graph\r\ndata: 1\r\n\r\n']).events).toHaveLength(1);
    expect(all(['event: graph\rdata: 1\r\r']).events).toHaveLength(1);
    const split = all(['event: graph\r', '\ndata: 1\r', '\n\r', '\n']);
    expect(split.events).toEqual([{ type: 'graph', data: '1', id: '' }]);
  });

  it('removes only one leading space from a value', () => {
    expect(all(['data:  two\n\n']).events[0]!.data).toBe(' two');
    expect(all(['data:none\n\n']).events[0]!.data).toBe('none');
  });

  it('dispatches a named event without data', () => {
    expect(all(['event: graph\n\n']).events).toEqual([{ type: 'graph', data: '', id: '' }]);
  });

  it('ignores a blank line with nothing before it', () => {
    expect(all(['\n\n\n']).events).toEqual([]);
  });

  it('keeps the last event id and reads retry', () => {
    const p = new SSEParser();
    const r = p.feed('id: 7\nretry: 2500\ndata: a\n\ndata: b\n\n');
    expect(r.events.map((e) => e.id)).toEqual(['7', '7']);
    expect(r.retry).toBe(2500);
  });

  it('ignores unknown fields and a bad retry', () => {
    const r = new SSEParser().feed('foo: bar\nretry: soon\ndata: a\n\n');
    expect(r.events).toHaveLength(1);
    expect(r.retry).toBeUndefined();
  });

  it('strips a byte order mark at the start of the stream', () => {
    expect(all(['\ufeffevent: graph\ndata: 1\n\n']).events[0]!.type).toBe('graph');
  });

  it('drops an unterminated event at the end of the stream', () => {
    const p = new SSEParser();
    p.feed('event: graph\ndata: 1\n');
    p.end();
    expect(p.feed('\n').events).toEqual([]);
  });
});
