import { useRef, useState } from 'react';
import { PageHead } from '../components/ui';
import type { DroverEvent } from '../api/sse';
import { useEvents } from '../lib/hooks';
import { fmtTime } from '../lib/format';

export const MAX_EVENTS = 500;

/** Newest first, capped. */
export function pushEvent(list: DroverEvent[], e: DroverEvent, max = MAX_EVENTS): DroverEvent[] {
  const next = [e, ...list];
  return next.length > max ? next.slice(0, max) : next;
}

export function EventsPage() {
  const [tagInput, setTagInput] = useState('*');
  const [tag, setTag] = useState('*');
  const [paused, setPaused] = useState(false);
  const [hideHeartbeats, setHideHeartbeats] = useState(true);
  const [events, setEvents] = useState<DroverEvent[]>([]);
  const [open, setOpen] = useState<number | null>(null);
  const pausedRef = useRef(paused);
  pausedRef.current = paused;
  const state = useEvents(tag, (e) => {
    if (pausedRef.current) return;
    if (hideHeartbeats && e.tag.endsWith('/heartbeat')) return;
    setEvents((l) => pushEvent(l, e));
  });
  return (
    <div>
      <PageHead title="Events" sub={`Live stream · ${state} · newest on top, last ${MAX_EVENTS} kept`} />
      <form
        className="toolbar card pad"
        onSubmit={(e) => {
          e.preventDefault();
          setEvents([]);
          setTag(tagInput.trim() || '*');
        }}
      >
        <label className="inline">
          Tag glob <input value={tagInput} onChange={(e) => setTagInput(e.target.value)} className="mono" data-testid="event-tag" />
        </label>
        <button type="submit">Apply</button>
        <button type="button" onClick={() => setPaused(!paused)} data-testid="event-pause">
          {paused ? 'Resume' : 'Pause'}
        </button>
        <button type="button" onClick={() => setEvents([])}>
          Clear
        </button>
        <label className="inline">
          <input type="checkbox" checked={hideHeartbeats} onChange={(e) => setHideHeartbeats(e.target.checked)} /> Hide heartbeats
        </label>
        <span className="muted small">{events.length} shown</span>
      </form>
      <section className="card">
        <table className="table" data-testid="event-table">
          <thead>
            <tr>
              <th>ID</th>
              <th>Time</th>
              <th>Tag</th>
              <th>Data</th>
            </tr>
          </thead>
          <tbody>
            {events.map((e) => (
              <tr key={e.id} className="clickable" onClick={() => setOpen(open === e.id ? null : e.id)} data-testid="event-row">
                <td>{e.id}</td>
                <td className="small">{fmtTime(e.time)}</td>
                <td className="mono small">{e.tag}</td>
                <td className="small mono">{open === e.id ? <pre className="json">{JSON.stringify(e.data, null, 2)}</pre> : <span className="trunc">{JSON.stringify(e.data)}</span>}</td>
              </tr>
            ))}
            {events.length === 0 && (
              <tr>
                <td colSpan={4} className="muted">
                  Waiting for events{paused ? ' (paused)' : ''}…
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </section>
    </div>
  );
}
