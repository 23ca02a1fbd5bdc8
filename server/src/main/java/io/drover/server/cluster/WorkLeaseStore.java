package io.drover.server.cluster;

import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * Who runs each unfinished subscription task, diagnosis and agent upgrade, under a lease: the server that starts one owns it and
 * renews the lease every few seconds while it runs. Work whose lease ran out belongs to a server that stopped, and
 * the first server to claim it (one statement, so only one wins) takes it over. A server alone claims, at its start,
 * everything a previous run of it left unfinished, whatever the leases say.
 */
public final class WorkLeaseStore {
    /** How long a lease holds without renewal; renewed every {@link Leadership#LEASE}. */
    public static final Duration TERM = Duration.ofSeconds(15);

    /** The kinds of leased work: their table and what "unfinished" means there. */
    public enum Work {
        TASK("task", "status = 'RUNNING'"),
        DIAGNOSIS("diagnosis", "phase IN ('PENDING', 'RUNNING')"),
        /** A fleet upgrade of agents: not taken over but failed, since its hand-overs cannot be followed elsewhere. */
        AGENT_UPGRADE("agent_upgrade_task", "status = 'running'");

        final String table;
        final String unfinished;

        Work(String table, String unfinished) {
            this.table = table;
            this.unfinished = unfinished;
        }
    }

    private final Jdbi jdbi;
    private final Clock clock;
    private final boolean alone;
    private final String server = UUID.randomUUID().toString();

    /** @param alone a server without a cluster: at start it takes over everything unfinished */
    public WorkLeaseStore(Jdbi jdbi, Clock clock, boolean alone) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.alone = alone;
    }

    /** This server (this run of it) as owners are named. */
    public String server() {
        return server;
    }

    /** Takes work this server just started (a new row, or one it took over). */
    public void own(Work work, long id) {
        jdbi.useHandle(h -> h.createUpdate("UPDATE " + work.table + " SET owner = :me, lease_until = :until WHERE id = :id")
                .bind("me", server).bind("until", until()).bind("id", id).execute());
    }

    /** Renews the leases of every unfinished piece of work this server owns. */
    public void renew() {
        jdbi.useHandle(h -> {
            for (Work work : Work.values()) {
                h.createUpdate("UPDATE " + work.table + " SET lease_until = :until WHERE owner = :me AND " + work.unfinished)
                        .bind("me", server).bind("until", until()).execute();
            }
        });
    }

    /**
     * Claims the unfinished work of servers that stopped: rows whose lease ran out, and rows without a lease older
     * than a term (started before leases, or whose owner died before taking the lease). Returns the ids this server
     * now owns. {@code atStart} on a server alone claims every unfinished row that is not its own.
     */
    public List<Long> claimAbandoned(Work work, boolean atStart) {
        OffsetDateTime now = OffsetDateTime.now(clock);
        String abandoned = "(owner IS NULL OR owner <> :me) AND " + (alone && atStart ? "TRUE"
                : "(lease_until < :now OR (lease_until IS NULL AND created_at < :old))");
        return jdbi.withHandle(h -> {
            List<Long> candidates = h.createQuery("SELECT id FROM " + work.table + " WHERE " + work.unfinished + " AND "
                            + abandoned + " ORDER BY id").bind("me", server).bind("now", now).bind("old", now.minus(TERM))
                    .mapTo(Long.class).list();
            List<Long> claimed = new ArrayList<>();
            for (long id : candidates) {
                int won = h.createUpdate("UPDATE " + work.table + " SET owner = :me, lease_until = :until WHERE id = :id AND "
                                + work.unfinished + " AND " + abandoned).bind("me", server).bind("until", until())
                        .bind("now", now).bind("old", now.minus(TERM)).bind("id", id).execute();
                if (won == 1) {
                    claimed.add(id);
                }
            }
            return claimed;
        });
    }

    private OffsetDateTime until() {
        return OffsetDateTime.now(clock).plus(TERM);
    }
}
