package io.drover.server.subscriptions;

import io.drover.core.subscriptions.ReplanDebounce;
import io.drover.model.events.Event;
import io.drover.model.subscriptions.SubscriptionInfo;
import io.drover.server.events.EventBus;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Automatic runs of enabled subscriptions (docs/operations.md, "Subscriptions"): an inventory change re-plans the TOPO subscriptions of its
 * business after a debounce (the timer restarts with each change, so a bulk import causes one run, but the run comes at
 * most a maximum delay after the first change, so a steady trickle of changes cannot postpone it forever); an agent that
 * comes online re-plans everything after the same debounce (its skipped instances); and a periodic inspection
 * re-plans every enabled subscription, spread evenly over the interval. A run with nothing to do leaves no task.
 */
public final class Triggers implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Triggers.class);

    private final SubscriptionStore store;
    private final SubscriptionService service;
    private final ReplanDebounce debounce;
    private final java.time.Clock clock;
    private final Duration inspection;
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("subscription-triggers").factory());
    private final Set<Long> dirtyBusinesses = new HashSet<>();
    private boolean everything;
    private ScheduledFuture<?> pending;
    private AutoCloseable subscription;
    private volatile java.util.function.BooleanSupplier leads = () -> true;

    public Triggers(SubscriptionStore store, SubscriptionService service, ReplanDebounce debounce, Duration inspection,
                    java.time.Clock clock) {
        this.store = store;
        this.service = service;
        this.debounce = debounce;
        this.clock = clock;
        this.inspection = inspection;
    }

    /**
     * Listens to the bus; the re-plans and inspections run only while {@code leads} says this server does them (in a
     * cluster every server hears every event, one acts).
     */
    public void start(EventBus bus, java.util.function.BooleanSupplier leads) {
        this.leads = leads;
        subscription = bus.subscribe(e -> e.tag().startsWith("drover/inventory/") || e.tag().startsWith("drover/agent/")
                && (e.tag().endsWith("/online") || e.tag().endsWith("/linked")), this::onEvent);
        if (!inspection.isZero()) {
            scheduler.scheduleAtFixedRate(this::inspect, inspection.toMillis(), inspection.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private synchronized void onEvent(Event e) {
        if (e.tag().startsWith("drover/agent/")) {
            everything = true;
        } else if (e.data().get("bk_biz_id") instanceof Number biz) {
            dirtyBusinesses.add(biz.longValue());
            for (String side : List.of("before", "after")) {
                if (e.data().get(side) instanceof Map<?, ?> m && m.get("bk_biz_id") instanceof Number other) {
                    dirtyBusinesses.add(other.longValue());
                }
            }
        } else {
            everything = true;
        }
        if (pending != null) {
            pending.cancel(false);
        }
        java.time.Instant now = clock.instant();
        long delay = Math.max(0, Duration.between(now, debounce.changed(now)).toMillis());
        pending = scheduler.schedule(this::replanDirty, delay, TimeUnit.MILLISECONDS);
    }

    private void replanDirty() {
        if (!leads.getAsBoolean()) {
            synchronized (this) {
                dirtyBusinesses.clear();
                everything = false;
                pending = null;
                debounce.fired();
            }
            return;
        }
        Set<Long> businesses;
        boolean all;
        synchronized (this) {
            businesses = Set.copyOf(dirtyBusinesses);
            all = everything;
            dirtyBusinesses.clear();
            everything = false;
            pending = null;
            debounce.fired();
        }
        for (SubscriptionInfo s : store.list(null, null)) {
            boolean affected = all || businesses.contains(s.bkBizId()); // a subscription plans nothing outside its business
            if (s.enabled() && affected && (all || "TOPO".equals(s.nodeType()))) {
                runQuietly(s, all ? "agent" : "inventory");
            }
        }
    }

    /** One inspection round: every enabled subscription, spread over the interval. */
    private void inspect() {
        if (!leads.getAsBoolean()) {
            return;
        }
        List<SubscriptionInfo> enabled = store.list(null, null).stream().filter(SubscriptionInfo::enabled).toList();
        long step = enabled.isEmpty() ? 0 : inspection.toMillis() / enabled.size();
        for (int i = 0; i < enabled.size(); i++) {
            long id = enabled.get(i).id();
            scheduler.schedule(() -> {
                try {
                    SubscriptionInfo s = store.get(id);
                    if (s.enabled()) {
                        runQuietly(s, "inspection");
                    }
                } catch (RuntimeException e) {
                    log.debug("subscription {} is gone before its inspection", id);
                }
            }, step * i, TimeUnit.MILLISECONDS);
        }
    }

    private void runQuietly(SubscriptionInfo s, String trigger) {
        try {
            Long task = service.run(s, trigger, "drover");
            if (task != null) {
                log.info("subscription {} re-planned by {}: task {}", s.id(), trigger, task);
            }
        } catch (RuntimeException e) {
            log.warn("subscription {} could not be re-planned by {}: {}", s.id(), trigger, e.getMessage());
        }
    }

    @Override
    public void close() {
        if (subscription != null) {
            try {
                subscription.close();
            } catch (Exception ignored) {
                // the bus is going away with the server
            }
        }
        scheduler.shutdownNow();
    }
}
