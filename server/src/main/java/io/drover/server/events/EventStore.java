package io.drover.server.events;

import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.core.match.Glob;
import io.drover.model.events.Event;
import io.drover.server.store.Dialect;
import io.drover.server.store.JdbcBatch;
import io.drover.server.store.Sql;
import io.drover.server.store.SqlTime;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * The transactional outbox: events are written in the same transaction as the change they describe, then
 * published on the bus after commit. Unpublished rows left by a crash are published on the next start.
 */
public final class EventStore {
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {
    };
    private static final int BATCH = 500;

    private final Jdbi jdbi;
    private final EventBus bus;
    private final Clock clock;
    private final java.util.concurrent.Semaphore wake = new java.util.concurrent.Semaphore(0);
    private Thread publisher;
    private final java.util.concurrent.ConcurrentLinkedQueue<List<Event>> committed = new java.util.concurrent.ConcurrentLinkedQueue<>();
    /** Set by {@link #publishPendingSoon}, cleared by the publisher thread when it makes the pass. */
    private final java.util.concurrent.atomic.AtomicBoolean pendingAsked = new java.util.concurrent.atomic.AtomicBoolean();

    public EventStore(Jdbi jdbi, EventBus bus, Clock clock) {
        this.jdbi = jdbi;
        this.bus = bus;
        this.clock = clock;
    }

    /** Writes an event inside the caller's transaction. */
    public void append(Handle handle, String tag, Map<String, Object> data) {
        handle.createUpdate("INSERT INTO event_outbox (tag, data, created_at) VALUES (:tag, :data, :at)")
                .bind("tag", tag).bind("data", Sql.toJson(data)).bind("at", OffsetDateTime.now(clock)).execute();
    }

    /** Writes several events inside the caller's transaction in one batch: (tag, data) pairs. */
    public void appendAll(Handle handle, List<Map.Entry<String, Map<String, Object>>> tagged) {
        if (tagged.isEmpty()) {
            return;
        }
        var batch = handle.prepareBatch("INSERT INTO event_outbox (tag, data, created_at) VALUES (:tag, :data, :at)");
        var now = OffsetDateTime.now(clock);
        for (Map.Entry<String, Map<String, Object>> e : tagged) {
            batch.bind("tag", e.getKey()).bind("data", Sql.toJson(e.getValue())).bind("at", now).add();
        }
        batch.execute();
    }

    /**
     * For hot paths (job returns): writes events already marked published inside the caller's transaction and
     * returns them with their ids; the caller hands them to {@link #publishCommitted} after commit. This skips the
     * outbox round trip (read back, mark published) that costs more than the insert. A crash between commit and
     * publish loses only the live delivery, whose subscribers are in this process and die with it; the events are
     * stored and replayable like any other.
     */
    public List<Event> appendPublished(Handle handle, List<Map.Entry<String, Map<String, Object>>> tagged) {
        List<Encoded> encoded = new ArrayList<>(tagged.size());
        for (Map.Entry<String, Map<String, Object>> e : tagged) {
            encoded.add(new Encoded(e.getKey(), e.getValue(), Sql.toJson(e.getValue())));
        }
        return appendPublishedEncoded(handle, encoded);
    }

    /**
     * An event with its data already encoded as the JSON to store: a return's event is built around the return's
     * stored JSON instead of encoding the return a second time. {@code json} is {@code data} as it is stored and
     * replayed (a return's nulls kept); it must be valid JSON, which replay parses.
     */
    public record Encoded(String tag, Map<String, Object> data, String json) {
    }

    /** {@link #appendPublished}, for events whose data the caller encoded. */
    public List<Event> appendPublishedEncoded(Handle handle, List<Encoded> tagged) {
        if (tagged.isEmpty()) {
            return List.of();
        }
        var now = OffsetDateTime.now(clock);
        List<Long> ids;
        if (Dialect.of(handle) == Dialect.POSTGRESQL) {
            // One statement for the whole batch: PostgreSQL's driver cannot rewrite a batch that returns generated
            // keys into a multi-row insert, and a thousand executions cost it several times the rows themselves.
            // The rows are inserted in list order, so their ids ascend in that order.
            List<String> tags = new ArrayList<>(tagged.size());
            List<String> datas = new ArrayList<>(tagged.size());
            for (Encoded e : tagged) {
                tags.add(e.tag());
                datas.add(e.json());
            }
            ids = new ArrayList<>(handle.createQuery("""
                            INSERT INTO event_outbox (tag, data, created_at, published)
                            SELECT u.tag, u.data, :at, TRUE FROM unnest(:tags, :datas) WITH ORDINALITY AS u(tag, data, n)
                            ORDER BY u.n RETURNING id""")
                    .bindArray("tags", String.class, tags).bindArray("datas", String.class, datas).bind("at", now)
                    .mapTo(Long.class).list());
            ids.sort(null);
        } else {
            // SQLite: one writer at a time and ids that only grow (AUTOINCREMENT), so the batch's rows get consecutive
            // ids ending at the last one inserted, as long as the batch is one transaction.
            if (!handle.isInTransaction()) {
                throw new IllegalStateException("events are appended inside the transaction that caused them");
            }
            String at = SqlTime.format(now);
            JdbcBatch.run(handle, "INSERT INTO event_outbox (tag, data, created_at, published) VALUES (?, ?, ?, TRUE)", tagged,
                    (statement, e) -> {
                        statement.setString(1, e.tag());
                        statement.setString(2, e.json());
                        statement.setString(3, at);
                    });
            long last = handle.createQuery("SELECT last_insert_rowid()").mapTo(Long.class).one();
            ids = new ArrayList<>(tagged.size());
            for (long id = last - tagged.size() + 1; id <= last; id++) {
                ids.add(id);
            }
        }
        if (ids.size() != tagged.size()) {
            throw new IllegalStateException("the database returned " + ids.size() + " ids for " + tagged.size() + " events");
        }
        List<Event> written = new ArrayList<>(ids.size());
        for (int i = 0; i < ids.size(); i++) {
            written.add(new Event(ids.get(i), tagged.get(i).tag(), now, tagged.get(i).data()));
        }
        return written;
    }

    /** Publishes events written by {@link #appendPublished} on the background thread, once their transaction committed. */
    public void publishCommitted(List<Event> events) {
        if (events.isEmpty()) {
            return;
        }
        committed.add(events);
        wakePublisher();
    }

    /**
     * Publishes the committed, unpublished events soon, on the background thread: calls that come together (a sign-in
     * storm of new keys) share one pass over the outbox instead of each reading and marking it in turn.
     */
    public void publishPendingSoon() {
        pendingAsked.set(true);
        wakePublisher();
    }

    private void wakePublisher() {
        synchronized (wake) {
            if (publisher == null) {
                publisher = Thread.ofPlatform().name("event-publisher").daemon().start(this::publishLoop);
            }
        }
        wake.release();
    }

    private void publishLoop() {
        while (true) {
            try {
                wake.acquire();
                wake.drainPermits();
                List<Event> ready;
                while ((ready = committed.poll()) != null) {
                    bus.publishAll(ready);
                }
                if (pendingAsked.getAndSet(false)) {
                    publishPending();
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                org.slf4j.LoggerFactory.getLogger(EventStore.class).warn("publishing events failed", e);
            }
        }
    }

    /** Publishes every committed, unpublished event in id order. Call after a transaction that appended events commits. */
    public synchronized int publishPending() {
        int published = 0;
        while (true) {
            List<Event> batch = jdbi.withHandle(h -> h.createQuery(
                            "SELECT * FROM event_outbox WHERE published = FALSE ORDER BY id LIMIT :limit")
                    .bind("limit", BATCH).map((rs, ctx) -> event(rs)).list());
            if (batch.isEmpty()) {
                return published;
            }
            bus.publishAll(batch);
            List<Long> ids = batch.stream().map(Event::id).toList();
            try {
                jdbi.useHandle(h -> h.createUpdate("UPDATE event_outbox SET published = TRUE WHERE id IN (<ids>)")
                        .bindList("ids", ids).execute());
            } catch (RuntimeException e) {
                // The write that appended these events committed; its caller must not be told otherwise (a full disk
                // fails this mark). They stay unpublished and are delivered again by the next call: at least once.
                org.slf4j.LoggerFactory.getLogger(EventStore.class).warn("events {}..{} were published but could not be"
                        + " marked so; they will be published again: {}", ids.getFirst(), ids.getLast(), e.getMessage());
                return published + batch.size();
            }
            published += batch.size();
        }
    }

    /** Stored events after {@code afterId} whose tag matches, oldest first, for replay. */
    public List<Event> after(long afterId, Glob tag, int limit) {
        List<Event> matched = new ArrayList<>();
        long cursor = afterId;
        while (matched.size() < limit) {
            long from = cursor;
            List<Event> batch = jdbi.withHandle(h -> h.createQuery(
                            "SELECT * FROM event_outbox WHERE id > :after AND published = TRUE ORDER BY id LIMIT :limit")
                    .bind("after", from).bind("limit", BATCH).map((rs, ctx) -> event(rs)).list());
            if (batch.isEmpty()) {
                break;
            }
            for (Event event : batch) {
                if (tag.matches(event.tag()) && matched.size() < limit) {
                    matched.add(event);
                }
            }
            cursor = batch.getLast().id();
        }
        return matched;
    }

    /** Deletes published events older than the retention. */
    public int prune(int retentionDays) {
        OffsetDateTime cutoff = OffsetDateTime.now(clock).minusDays(retentionDays);
        return jdbi.withHandle(h -> h.createUpdate("DELETE FROM event_outbox WHERE published = TRUE AND created_at < :cutoff")
                .bind("cutoff", cutoff).execute());
    }

    private static Event event(ResultSet rs) throws SQLException {
        return new Event(rs.getLong("id"), rs.getString("tag"), SqlTime.read(rs, "created_at"),
                Sql.fromJson(rs.getString("data"), MAP));
    }
}
