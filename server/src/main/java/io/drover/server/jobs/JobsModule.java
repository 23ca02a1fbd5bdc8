package io.drover.server.jobs;

import io.drover.server.auth.Principal;
import io.drover.server.events.EventBus;
import io.drover.server.events.EventStore;
import io.drover.server.keys.KeyStore;
import io.drover.server.store.SecretBox;
import io.drover.transport.envelope.JobPublisher;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.function.Function;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The jobs' parts: the job lifecycle, following the events that end jobs (an agent lost; in a cluster, a return
 * another server stored), and the one place that builds the {@link JobAgentCalls} the server's own work (subscriptions,
 * diagnosis, upgrades) runs typed calls through, each as its own system principal.
 */
public final class JobsModule implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(JobsModule.class);

    /**
     * What the module needs from the rest of the server: the agents' grains and businesses, where a job's load goes
     * ({@code publisher}), and whether other servers store returns too ({@code clustered}).
     */
    public record Needs(Jdbi jdbi, EventStore events, EventBus bus, KeyStore keys, Function<String, Map<String, Object>> grains,
                        Function<Collection<String>, Map<String, Long>> businesses, JobPublisher publisher,
                        SecretBox secrets, boolean clustered, Clock clock) {
    }

    /** The settings: named target groups, the largest return stored, how long a call of the server's own work waits. */
    public record Settings(Map<String, String> nodegroups, int returnMaxBytes, Duration callTimeout) {
    }

    private final JobService jobs;
    private final Duration callTimeout;

    public JobsModule(Needs needs, Settings settings) {
        EventBus bus = needs.bus();
        this.jobs = new JobService(needs.jdbi(), needs.events(), needs.keys(), needs.grains(), needs.businesses(),
                settings.nodegroups(), needs.publisher(), bus::wantPeerReturns, settings.returnMaxBytes(), needs.secrets(),
                needs.clock());
        // an agent that went offline leaves its unfinished jobs AGENT_LOST (the registry writes the event once)
        bus.subscribe(e -> e.tag().startsWith("drover/agent/") && e.tag().endsWith("/lost"), jobs::agentLost);
        if (needs.clustered()) {
            // returns another server stored complete the jobs this server's callers wait on
            bus.subscribe(e -> e.tag().startsWith("salt/job/") && e.tag().contains("/ret/"), jobs::returnStored);
        }
        this.callTimeout = settings.callTimeout();
    }

    /** Typed calls on agents for the server's own work {@code system}: its jobs are recorded as that system principal. */
    public AgentCalls callsAs(String system) {
        return new JobAgentCalls(jobs, callTimeout, Principal.system(system));
    }

    /** Records the jobs whose agents did not answer in time (run every two seconds). */
    public void recordTimeouts() {
        try {
            jobs.recordTimeouts();
        } catch (RuntimeException e) {
            log.warn("recording timed-out jobs failed", e);
        }
    }

    public JobService service() {
        return jobs;
    }

    @Override
    public void close() {
        jobs.close();
    }
}
