package io.drover.server;

import io.drover.server.agents.AgentsModule;
import io.drover.server.agentupgrade.AgentUpgradeService;
import io.drover.server.auth.AuthModule;
import io.drover.server.cluster.ClusterModule;
import io.drover.server.cluster.Leadership;
import io.drover.server.diagnosis.DiagnosisModule;
import io.drover.server.http.CertificateWatcher;
import io.drover.server.jobs.JobsModule;
import io.drover.server.ops.Retention;
import io.drover.server.subscriptions.SubscriptionsModule;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's periodic duties on one thread: leases and leadership, pruning, agent presence, job timeouts, the audit
 * of failed authentications, and the HTTPS certificate's renewal.
 */
final class Housekeeping implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Housekeeping.class);

    /** How often the files of tls-cert and tls-key are looked at for a renewed certificate. */
    private static final long CERTIFICATE_CHECK_SECONDS = 2;

    /** What the duties act on; {@code certificates} is null when the API serves plain HTTP. */
    record Needs(Leadership leadership, ClusterModule cluster, SubscriptionsModule subscriptions, DiagnosisModule diagnosis,
                 AgentUpgradeService agentUpgrades, JobsModule jobs, Retention retention, AgentsModule agents,
                 AuthModule auth, CertificateWatcher certificates) {
    }

    private final Needs needs;
    private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon()
            .name("drover-housekeeping").factory());

    Housekeeping(Needs needs) {
        this.needs = needs;
    }

    void start() {
        executor.scheduleWithFixedDelay(this::refreshLeases, Leadership.LEASE.toMillis(),
                Leadership.LEASE.toMillis(), TimeUnit.MILLISECONDS);
        needs.leadership().refresh();
        executor.scheduleWithFixedDelay(this::prune, 1, 60, TimeUnit.MINUTES);
        executor.scheduleWithFixedDelay(needs.agents()::checkPresence, 1, 1, TimeUnit.SECONDS);
        executor.scheduleWithFixedDelay(needs.jobs()::recordTimeouts, 2, 2, TimeUnit.SECONDS);
        executor.scheduleWithFixedDelay(needs.auth()::auditFailures, 10, 10, TimeUnit.SECONDS);
        if (needs.certificates() != null) {
            executor.scheduleWithFixedDelay(needs.certificates(), CERTIFICATE_CHECK_SECONDS,
                    CERTIFICATE_CHECK_SECONDS, TimeUnit.SECONDS);
        }
    }

    /**
     * Every lease period: asks for the duties this server lacks, renews the leases of the work it runs, and takes
     * over the work of servers whose leases ran out (a task continues from its record; a diagnosis resumes from its
     * checkpoint).
     */
    private void refreshLeases() {
        try {
            needs.leadership().refresh();
            needs.cluster().renew();
            needs.subscriptions().takeOverAbandoned();
            needs.diagnosis().takeOverAbandoned();
            needs.agentUpgrades().failAbandoned(false);
        } catch (RuntimeException e) {
            log.warn("refreshing leases failed", e);
        }
    }

    private void prune() {
        if (!needs.leadership().leads(Leadership.Duty.PRUNING)) {
            return;
        }
        needs.jobs().service().forgetStaleJobs();
        needs.retention().run();
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
