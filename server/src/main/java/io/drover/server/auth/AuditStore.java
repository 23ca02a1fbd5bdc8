package io.drover.server.auth;

import io.drover.model.api.Page;
import io.drover.model.auth.AuditEntry;
import io.drover.server.store.SqlTime;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.List;
import org.jdbi.v3.core.Jdbi;

/**
 * Every mutation by an authenticated caller (accepted or refused) with who made it and how it ended, and failed
 * authentications once per address and minute ({@link AuthFailures}).
 */
public final class AuditStore {
    private static final int MAX_DETAIL = 2000;
    private final Jdbi jdbi;
    private final Clock clock;

    public AuditStore(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
    }

    public void record(String actor, String method, String path, int status, String detail) {
        String trimmed = detail == null || detail.length() <= MAX_DETAIL ? detail : detail.substring(0, MAX_DETAIL);
        jdbi.useHandle(h -> h.createUpdate("""
                        INSERT INTO audit_log (at, actor, method, path, status, detail)
                        VALUES (:at, :actor, :method, :path, :status, :detail)""")
                .bind("at", OffsetDateTime.now(clock)).bind("actor", actor).bind("method", method)
                .bind("path", path.length() > 1024 ? path.substring(0, 1024) : path)
                .bind("status", status).bind("detail", trimmed).execute());
    }

    /** Deletes entries older than the retention; how many. */
    public int prune(int retentionDays) {
        return jdbi.withHandle(h -> h.createUpdate("DELETE FROM audit_log WHERE at < :cutoff")
                .bind("cutoff", OffsetDateTime.now(clock).minusDays(retentionDays)).execute());
    }

    /** Newest first. */
    public Page<AuditEntry> list(long offset, int limit) {
        return jdbi.withHandle(h -> {
            long total = h.createQuery("SELECT COUNT(*) FROM audit_log").mapTo(Long.class).one();
            List<AuditEntry> items = h.createQuery("SELECT * FROM audit_log ORDER BY id DESC LIMIT :limit OFFSET :offset")
                    .bind("limit", limit).bind("offset", offset)
                    .map((rs, ctx) -> new AuditEntry(rs.getLong("id"), SqlTime.read(rs, "at"),
                            rs.getString("actor"), rs.getString("method"), rs.getString("path"), rs.getInt("status"),
                            rs.getString("detail")))
                    .list();
            return new Page<>(items, total, offset, limit);
        });
    }
}
