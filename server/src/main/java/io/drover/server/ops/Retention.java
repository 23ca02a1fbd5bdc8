package io.drover.server.ops;

import io.drover.server.auth.AuditStore;
import io.drover.server.events.EventStore;
import io.drover.server.jobs.JobService;
import io.drover.server.store.Database;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hourly pruning: audit entries, published events, and jobs with their returns older than their retention are
 * deleted, and ended diagnoses past theirs (count per host and age), then the pages they left free are given back to the file system (SQLite), so that the database file stops
 * growing once the retention window is full. Each step runs even when one before it failed.
 */
public final class Retention {
    private static final Logger log = LoggerFactory.getLogger(Retention.class);

    /** Days kept: the settings audit-retention-days, event-retention-days and job-retention-days. */
    public record Days(int audit, int events, int jobs) {
    }

    /** What one run deleted and the database pages it gave back; -1 for a step that failed. */
    public record Pruned(int audit, int events, int jobs, int diagnoses, long freedPages) {
    }

    private final AuditStore audit;
    private final EventStore events;
    private final JobService jobs;
    private final Database database;
    private final Days days;
    private final java.util.function.IntSupplier diagnoses;

    /** {@code diagnoses}: deletes the diagnoses past their retention (settings diagnosis-retention-*); how many. */
    public Retention(AuditStore audit, EventStore events, JobService jobs, java.util.function.IntSupplier diagnoses, Database database,
                     Days days) {
        this.diagnoses = diagnoses;
        this.audit = audit;
        this.events = events;
        this.jobs = jobs;
        this.database = database;
        this.days = days;
    }

    public Pruned run() {
        int auditPruned = step("audit", () -> audit.prune(days.audit()));
        if (auditPruned > 0) {
            log.info("pruned {} audit entries older than {} days", auditPruned, days.audit());
        }
        int eventsPruned = step("event", () -> events.prune(days.events()));
        if (eventsPruned > 0) {
            log.info("pruned {} event(s) older than {} days", eventsPruned, days.events());
        }
        int jobsPruned = step("job", () -> jobs.prune(days.jobs()));
        if (jobsPruned > 0) {
            log.info("pruned {} job(s) older than {} days with their returns", jobsPruned, days.jobs());
        }
        int diagnosesPruned = step("diagnosis", diagnoses);
        if (diagnosesPruned > 0) {
            log.info("pruned {} ended diagnosis(es) past their retention", diagnosesPruned);
        }
        long freed;
        try {
            freed = database.reclaimFreePages();
            if (freed > 0) {
                log.info("gave {} free database page(s) back to the file system", freed);
            }
        } catch (RuntimeException e) {
            log.warn("giving free database pages back failed", e);
            freed = -1;
        }
        return new Pruned(auditPruned, eventsPruned, jobsPruned, diagnosesPruned, freed);
    }

    private static int step(String what, java.util.function.IntSupplier prune) {
        try {
            return prune.getAsInt();
        } catch (RuntimeException e) {
            log.warn("{} pruning failed", what, e);
            return -1;
        }
    }
}
