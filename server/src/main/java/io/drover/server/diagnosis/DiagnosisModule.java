package io.drover.server.diagnosis;

import io.drover.model.inventory.Host;
import io.drover.server.events.EventBus;
import io.drover.server.events.EventStore;
import io.drover.server.jobs.AgentCalls;
import io.drover.server.subscriptions.DeploymentStore;
import io.drover.server.subscriptions.SubscriptionService;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.Predicate;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Diagnosis's parts, built in order: the library, the runner, diagnoses, and the three trigger sources. {@link #start}
 * loads the built-in library, resumes what a stop left unfinished and starts the triggers.
 */
public final class DiagnosisModule implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DiagnosisModule.class);

    /** What the module needs from the rest of the server. */
    public record Needs(Jdbi jdbi, EventStore events, AgentCalls agentCalls, SubscriptionService subscriptions,
                        DeploymentStore deployments, Function<String, List<Host>> findHosts, Diagnoses.HostsUnder hostsUnder,
                        LongFunction<String> agentOfHost,
                        Function<String, Long> hostOfAgent, Predicate<String> online,
                        io.drover.server.cluster.WorkLeaseStore leases, Clock clock) {
    }

    /** The settings: concurrency, retry backoff, repeat interval, path cap, how long ended diagnoses are kept. */
    public record Settings(int concurrency, DiagnosisRunner.Retry retry, Duration repeatInterval, int maxPaths,
                           Diagnoses.Retention retention) {
    }

    private final DiagnosisCatalog catalog;
    private final DiagnosisRunner runner;
    private final Diagnoses diagnoses;
    private final AlertIntake alerts;
    private final EventTriggers eventTriggers;
    private final CronTriggers cronTriggers;
    private final Clock clock;
    private final Diagnoses.Retention retention;
    private volatile java.util.function.BooleanSupplier leads = () -> true;
    private final ScheduledExecutorService cron = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("diagnosis-cron").factory());

    public DiagnosisModule(Needs needs, Settings settings) {
        this.clock = needs.clock();
        DiagnosisStore repository = new DiagnosisStore();
        this.catalog = new DiagnosisCatalog(needs.jdbi(), repository, needs.clock(), settings.maxPaths());
        OperationDispatcher executor = new OperationDispatcher(needs.agentCalls(),
                new HostSubscriptions(needs.subscriptions(), needs.deployments(), needs.clock()));
        this.runner = new DiagnosisRunner(needs.jdbi(), repository, catalog, executor, needs.events(), needs.agentOfHost(), needs.online(),
                needs.leases(), needs.clock(), settings.retry(), settings.concurrency());
        this.diagnoses = new Diagnoses(needs.jdbi(), repository, catalog, runner, needs.events(), needs.findHosts(), needs.hostsUnder(), needs.agentOfHost(),
                new AgentOperationKills(needs.agentCalls()), needs.clock());
        this.retention = settings.retention();
        this.alerts = new AlertIntake(needs.jdbi(), needs.events(), repository, catalog, diagnoses, needs.clock(), settings.repeatInterval());
        this.eventTriggers = new EventTriggers(catalog, diagnoses, needs.hostOfAgent(), needs.clock(), settings.repeatInterval());
        this.cronTriggers = new CronTriggers(catalog, repository, diagnoses, needs.jdbi(), needs.events(), needs.clock());
    }

    /** Loads the library, resumes what a stop left unfinished, and starts the triggers, which act while {@code leads}. */
    public void start(EventBus bus, java.util.function.BooleanSupplier leads) {
        this.leads = leads;
        int loaded = catalog.loadLibrary();
        int resumed = runner.resumeAbandoned(true);
        if (resumed > 0) {
            log.info("resuming {} diagnosis(es) a stop left unfinished", resumed);
        }
        log.debug("built-in diagnosis library: {} document(s) loaded", loaded);
        eventTriggers.start(bus, leads);
        cron.scheduleWithFixedDelay(eventTriggers::checkPeerReturns, 0, 5, TimeUnit.SECONDS);
        // Checked at the start of each minute, as cron times are whole minutes.
        long intoMinute = clock.instant().getEpochSecond() % 60;
        cron.scheduleAtFixedRate(this::tick, 60 - intoMinute, 60, TimeUnit.SECONDS);
    }

    /** Resumes the diagnoses of a server of the cluster that stopped (its leases ran out). */
    public void takeOverAbandoned() {
        int taken = runner.resumeAbandoned(false);
        if (taken > 0) {
            log.info("took over {} diagnosis(es) a stopped server left unfinished", taken);
        }
    }

    private void tick() {
        if (!leads.getAsBoolean()) {
            return;
        }
        try {
            cronTriggers.tick();
            alerts.prune();
        } catch (RuntimeException e) {
            log.warn("diagnosis cron check failed", e);
        }
    }

    /** Deletes the ended diagnoses past the retention (a bounded pass; run by the server leading the pruning). */
    public int prune() {
        return diagnoses.prune(retention);
    }

    public DiagnosisCatalog catalog() {
        return catalog;
    }

    public Diagnoses diagnoses() {
        return diagnoses;
    }

    public AlertIntake alerts() {
        return alerts;
    }

    public CronTriggers cronTriggers() {
        return cronTriggers;
    }

    @Override
    public void close() throws Exception {
        cron.shutdownNow();
        eventTriggers.close();
        runner.close();
    }
}
