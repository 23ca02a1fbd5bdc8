package io.drover.server.subscriptions;

import io.drover.core.subscriptions.ReplanDebounce;
import io.drover.server.agents.AgentRegistry;
import io.drover.server.cluster.WorkLeaseStore;
import io.drover.server.events.EventBus;
import io.drover.server.events.EventStore;
import io.drover.server.inventory.InventoryStore;
import io.drover.server.jobs.AgentCalls;
import io.drover.server.packages.PackageStore;
import io.drover.server.secrets.SecretStore;
import io.drover.server.store.SecretBox;
import io.drover.server.subscriptions.execution.TaskStore;
import io.drover.server.subscriptions.execution.TaskScheduler;
import io.drover.server.subscriptions.planning.AgentDirectory;
import io.drover.server.subscriptions.planning.ChangePlanBuilder;
import java.time.Clock;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The subscriptions' parts, built in order: the store, the secrets of plugins, deployments, the task scheduler, the
 * service that plans and runs, and the triggers (inventory changes, inspections). {@link #start} starts the triggers.
 */
public final class SubscriptionsModule implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SubscriptionsModule.class);

    /** What the module needs from the rest of the server; {@code agentCalls} runs the tasks' calls on agents. */
    public record Needs(Jdbi jdbi, EventStore events, SecretBox secrets, PackageStore packages, AgentRegistry agents,
                        AgentCalls agentCalls, WorkLeaseStore leases, Clock clock) {
    }

    /** The settings: tasks run at once, the inventory-change debounce (and its cap), the inspection interval. */
    public record Settings(int taskConcurrency, Duration debounce, Duration debounceMax, Duration inspectionInterval) {
    }

    private final SubscriptionStore store;
    private final SecretStore pluginSecrets;
    private final DeploymentStore deployments;
    private final TaskScheduler tasks;
    private final SubscriptionService service;
    private final Triggers triggers;

    public SubscriptionsModule(Needs needs, Settings settings) {
        Jdbi jdbi = needs.jdbi();
        this.store = new SubscriptionStore(jdbi, needs.clock());
        this.pluginSecrets = new SecretStore(jdbi, needs.secrets(), needs.events(), biz -> store.list(biz, null), needs.clock());
        this.deployments = new DeploymentStore(jdbi, needs.clock());
        // Subscription tasks limit this system principal to the business they act for, per task.
        this.tasks = new TaskScheduler(new TaskStore(jdbi, needs.events(), needs.clock()), needs.agentCalls(),
                deployments, settings.taskConcurrency(), needs.leases(), needs.clock());
        this.service = new SubscriptionService(store,
                new ChangePlanBuilder(jdbi, new InventoryStore(), needs.packages(), deployments,
                        new AgentDirectory(needs.agents()), pluginSecrets), tasks, deployments,
                new ScopeObjects(jdbi, new InventoryStore()));
        this.triggers = new Triggers(store, service, new ReplanDebounce(settings.debounce(), settings.debounceMax()),
                settings.inspectionInterval(), needs.clock());
    }

    /** Continues the tasks the last stop interrupted, where they stopped. */
    public void resumeInterrupted() {
        int interrupted = tasks.takeOver(true, service::resumption);
        if (interrupted > 0) {
            log.warn("{} task(s) were interrupted by the last stop; they continue where they stopped", interrupted);
        }
    }

    /** Takes over the tasks of a server of the cluster that stopped (their leases ran out). */
    public void takeOverAbandoned() {
        int taken = tasks.takeOver(false, service::resumption);
        if (taken > 0) {
            log.warn("{} task(s) of a server that stopped were taken over; they continue where they stopped", taken);
        }
    }

    /** Starts the triggers, which act while {@code leads}. */
    public void start(EventBus bus, BooleanSupplier leads) {
        triggers.start(bus, leads);
    }

    public SubscriptionStore store() {
        return store;
    }

    public SecretStore pluginSecrets() {
        return pluginSecrets;
    }

    public DeploymentStore deployments() {
        return deployments;
    }

    public SubscriptionService service() {
        return service;
    }

    /** The triggers stop first, so that no new task starts while the running ones stop. */
    @Override
    public void close() {
        triggers.close();
        tasks.close();
    }
}
