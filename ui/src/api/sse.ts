// Server-Sent Events over fetch (EventSource cannot send the Authorization header): an incremental parser and a
// reconnecting stream that resumes with ?since=<last id>.
import { getToken, notifyUnauthorized, problemFrom, withQuery } from './client';

export interface SseMessage {
  id?: string;
  event: string;
  data: string;
  retry?: number;
}

/** Feed it chunks split anywhere (even inside "\r\n" or a multi-byte character); it returns whole messages. */
export class SseParser {
  private buffer = '';
  private pendingCR = false;
  private data: string[] = [];
  private hasData = false;
  private event = '';
  private id: string | undefined;
  private retry: number | undefined;
  private readonly decoder = new TextDecoder('utf-8');
  /** the last id the stream set (persists across messages, as in the spec) */
  lastEventId: string | undefined;

  push(chunk: string | Uint8Array): SseMessage[] {
    let text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    if (this.pendingCR) {
      this.pendingCR = false;
      if (text.startsWith('\n')) text = text.slice(1);
    }
    this.buffer += text;
    const out: SseMessage[] = [];
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const c = this.buffer.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      const line = this.buffer.slice(start, i);
      if (c === 13) {
        if (i + 1 < this.buffer.length) {
          if (this.buffer.charCodeAt(i + 1) === 10) i++;
        } else {
          this.pendingCR = true;
        }
      }
      start = i + 1;
      const msg = this.line(line);
      if (msg) out.push(msg);
    }
    this.buffer = this.buffer.slice(start);
    return out;
  }

  private line(line: string): SseMessage | null {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return null; // comment / keep-alive
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data.push(value);
        this.hasData = true;
        break;
      case 'event':
        this.event = value;
        break;
      case 'id':
        if (!value.includes('\0')) {
          this.id = value;
          this.lastEventId = value;
        }
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retry = Number(value);
        break;
      default:
        break; // unknown fields are ignored
    }
    return null;
  }

  private dispatch(): SseMessage | null {
    const msg: SseMessage | null = this.hasData
      ? { id: this.id ?? this.lastEventId, event: this.event || 'message', data: this.data.join('\n'), retry: this.retry }
      : null;
    this.data = [];
    this.hasData = false;
    this.event = '';
    this.id = undefined;
    this.retry = undefined;
    return msg;
  }
}

/** One Drover event, the JSON in each message's data. */
export interface DroverEvent {
  id: number;
  tag: string;
  time: string;
  data: Record<string, unknown>;
}

export function toDroverEvent(msg: SseMessage): DroverEvent | null {
  try {
    const v = JSON.parse(msg.data);
    if (v && typeof v === 'object' && typeof v.tag === 'string') {
      return { id: Number(v.id ?? msg.id), tag: v.tag, time: String(v.time ?? ''), data: v.data ?? {} };
    }
  } catch {
    // not an event document
  }
  return null;
}

/** Backoff before reconnect attempt n (0-based): 1 s, 2 s, 4 s … capped at 30 s. */
export function backoffMs(attempt: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.min(attempt, 5));
}

export type StreamState = 'connecting' | 'open' | 'retrying' | 'closed';

export interface StreamOptions {
  tag?: string;
  since?: number;
  onEvent: (e: DroverEvent) => void;
  onState?: (s: StreamState, detail?: string) => void;
  fetchImpl?: typeof fetch;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    });
  });
}

/** Opens GET /api/v1/events and keeps it open until the returned function is called. */
export function openEventStream(opts: StreamOptions): () => void {
  const controller = new AbortController();
  const signal = controller.signal;
  const doFetch = opts.fetchImpl ?? fetch;
  const sleep = opts.sleep ?? defaultSleep;
  let since = opts.since;

  (async () => {
    let attempt = 0;
    while (!signal.aborted) {
      opts.onState?.(attempt === 0 ? 'connecting' : 'retrying');
      try {
        const token = getToken();
        const headers: Record<string, string> = { Accept: 'text/event-stream' };
        if (token) headers.Authorization = `Bearer ${token}`;
        const res = await doFetch(withQuery('/api/v1/events', { tag: opts.tag, since }), { headers, signal, cache: 'no-store' });
        if (!res.ok || !res.body) {
          const problem = await problemFrom(res);
          if (res.status === 401) {
            notifyUnauthorized(problem);
            opts.onState?.('closed', problem.detail ?? problem.title);
            return;
          }
          if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429) {
            opts.onState?.('closed', `${problem.title}${problem.detail ? `: ${problem.detail}` : ''}`);
            return;
          }
          throw new Error(problem.title);
        }
        opts.onState?.('open');
        const parser = new SseParser();
        const reader = res.body.getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          attempt = 0;
          for (const msg of parser.push(value)) {
            const ev = toDroverEvent(msg);
            if (!ev) continue;
            if (Number.isFinite(ev.id)) since = ev.id;
            opts.onEvent(ev);
          }
        }
      } catch (e) {
        if (signal.aborted) break;
        opts.onState?.('retrying', (e as Error).message);
      }
      if (signal.aborted) break;
      await sleep(backoffMs(attempt++), signal);
    }
    opts.onState?.('closed');
  })();

  return () => controller.abort();
}
