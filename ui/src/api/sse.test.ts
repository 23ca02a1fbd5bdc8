import { describe, expect, it } from 'vitest';
import { backoffMs, openEventStream, SseParser, toDroverEvent, type DroverEvent } from './sse';

const stream =
  ': keep-alive comment\n' +
  'id: 1\nevent: drover/inventory/host/created\ndata: {"id":1,"tag":"drover/inventory/host/created","time":"t1","data":{"id":1}}\n\n' +
  'id: 2\r\nevent: salt/job/1/ret/host-1\r\ndata: {"id":2,"tag":"salt/job/1/ret/host-1",\r\ndata: "time":"t2","data":{"note":"héllo ✓"}}\r\n\r\n' +
  'data: line one\ndata:line two\n\n' +
  'event: empty\n\n' +
  'id: 3\rdata: {"id":3,"tag":"x","time":"t3","data":{}}\r\r';

function parseAll(chunks: Array<string | Uint8Array>) {
  const p = new SseParser();
  return chunks.flatMap((c) => p.push(c));
}

describe('SseParser', () => {
  const whole = parseAll([stream]);

  it('parses fields, comments, CRLF/CR line ends and multi-line data', () => {
    expect(whole.length).toBe(4);
    expect(whole[0]).toMatchObject({ id: '1', event: 'drover/inventory/host/created' });
    expect(whole[1].data).toBe('{"id":2,"tag":"salt/job/1/ret/host-1",\n"time":"t2","data":{"note":"héllo ✓"}}');
    expect(whole[2]).toMatchObject({ event: 'message', data: 'line one\nline two', id: '2' });
    expect(whole[3]).toMatchObject({ id: '3' });
  });

  it('gives the same messages whatever the chunk boundaries', () => {
    for (let size = 1; size <= 17; size++) {
      const chunks: string[] = [];
      for (let i = 0; i < stream.length; i += size) chunks.push(stream.slice(i, i + size));
      expect(parseAll(chunks)).toEqual(whole);
    }
    // every single split point, including between \r and \n
    for (let cut = 1; cut < stream.length; cut++) expect(parseAll([stream.slice(0, cut), stream.slice(cut)])).toEqual(whole);
  });

  it('handles bytes split inside a multi-byte character', () => {
    const bytes = new TextEncoder().encode(stream);
    for (let cut = 1; cut < bytes.length; cut += 3) {
      expect(parseAll([bytes.slice(0, cut), bytes.slice(cut)])).toEqual(whole);
    }
  });

  it('keeps an unfinished message until its blank line', () => {
    const p = new SseParser();
    expect(p.push('data: {"id":9')).toEqual([]);
    expect(p.push(',"tag":"a","time":"t","data":{}}\n')).toEqual([]);
    expect(p.push('\n')).toHaveLength(1);
  });

  it('turns message data into Drover events', () => {
    const ev = toDroverEvent(whole[1]);
    expect(ev).toEqual({ id: 2, tag: 'salt/job/1/ret/host-1', time: 't2', data: { note: 'héllo ✓' } });
    expect(toDroverEvent(whole[2])).toBeNull();
  });
});

describe('openEventStream', () => {
  it('sends the bearer header, resumes with since=<last id> after a drop, and stops on abort', async () => {
    const urls: string[] = [];
    const headers: Array<Record<string, string>> = [];
    let calls = 0;
    let stop: () => void = () => {};
    const got: DroverEvent[] = [];
    const done = new Promise<void>((resolve) => {
      const fetchImpl = (async (url: string, init: RequestInit) => {
        urls.push(url);
        headers.push(init.headers as Record<string, string>);
        calls++;
        const body = calls === 1 ? 'id: 5\ndata: {"id":5,"tag":"a/b","time":"t","data":{}}\n\nid: 6\ndata: {"id":6,"tag":"a/c","time":"t","data":{}}\n\n' : 'id: 7\ndata: {"id":7,"tag":"a/d","time":"t","data":{}}\n\n';
        if (calls === 3) {
          stop();
          resolve();
          return new Response(new ReadableStream({ start: () => {} }), { status: 200 });
        }
        return new Response(new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode(body)); c.close(); } }), { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
      }) as unknown as typeof fetch;
      stop = openEventStream({ tag: 'a/*', onEvent: (e) => got.push(e), fetchImpl, sleep: async () => {} });
    });
    await done;
    expect(got.map((e) => e.id)).toEqual([5, 6, 7]);
    expect(urls[0]).toBe('/api/v1/events?tag=a%2F*');
    expect(urls[1]).toBe('/api/v1/events?tag=a%2F*&since=6');
    expect(urls[2]).toBe('/api/v1/events?tag=a%2F*&since=7');
    expect(headers[0].Accept).toBe('text/event-stream');
  });

  it('backs off exponentially up to 30 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 10].map(backoffMs)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  });
});
