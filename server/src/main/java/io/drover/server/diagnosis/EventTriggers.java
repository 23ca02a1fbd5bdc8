package io.drover.server.diagnosis;

import io.drover.core.match.Re2Regex;
import io.drover.core.diagnosis.TriggerDocuments;
import io.drover.model.events.Event;
import io.drover.model.inventory.Host;
import io.drover.server.events.EventBus;
import io.drover.server.store.Sql;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Diagnoses started by Drover's own events ({@code droverEventTemplate}: regular expressions over the event's tag
 * and over its data as JSON): a failed subscription step, an agent lost, a plugin that exited. The host is the
 * event's ({@code bk_host_id}, or the host of the agent that sent the event or that it is about), else the trigger's
 * {@code nodeName}; the event's text values join the parameters. The same trigger
 * and host start at most one diagnosis per repeat interval, so an event storm does not become a diagnosis storm.
 * Diagnosis events never trigger diagnoses.
 */
public final class EventTriggers implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EventTriggers.class);

    private final DiagnosisCatalog catalog;
    private final Diagnoses diagnoses;
    private final Function<String, Long> hostOfAgent;
    private final Clock clock;
    private final Duration repeatInterval;
    private final Map<String, Instant> lastStarted = new ConcurrentHashMap<>();
    private final Map<String, Re2Regex> regexes = new ConcurrentHashMap<>();
    private final ExecutorService worker = Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("diagnosis-events").factory());
    private AutoCloseable subscription;

    /** {@code hostOfAgent}: the host an agent is linked to (null: none). */
    EventTriggers(DiagnosisCatalog catalog, Diagnoses diagnoses, Function<String, Long> hostOfAgent, Clock clock, Duration repeatInterval) {
        this.catalog = catalog;
        this.diagnoses = diagnoses;
        this.hostOfAgent = hostOfAgent;
        this.clock = clock;
        this.repeatInterval = repeatInterval;
    }

    void start(EventBus bus, java.util.function.BooleanSupplier leads) {
        this.bus = bus;
        this.leads = leads;
        // Whether this server leads is asked only of an event a trigger matched: the question is a database round
        // trip, and asked of every event it held up the delivery of every job return on the leading server.
        subscription = bus.subscribe(e -> !e.tag().startsWith("drover/diagnosis/") && hasEventTriggers(), e -> {
            try {
                worker.execute(() -> onEvent(e));
            } catch (RejectedExecutionException ignored) {
                // stopping
            }
        });
    }

    private EventBus bus;
    private java.util.function.BooleanSupplier leads;
    private AutoCloseable peerReturns;

    /**
     * Run every few seconds: the server leading the triggers wants the job returns other servers of a cluster store
     * while any trigger matches events (a trigger's tag expression may name returns), and no server wants them for it
     * otherwise.
     */
    synchronized void checkPeerReturns() {
        try {
            boolean wanted = leads.getAsBoolean() && hasEventTriggers();
            if (wanted && peerReturns == null) {
                peerReturns = bus.wantPeerReturns();
            } else if (!wanted && peerReturns != null) {
                peerReturns.close();
                peerReturns = null;
            }
        } catch (Exception e) {
            log.warn("diagnosis event triggers: cannot change the interest in peers' returns", e);
        }
    }

    private boolean hasEventTriggers() {
        for (TriggerDocuments.Trigger trigger : catalog.triggers()) {
            if (trigger.event() != null) {
                return true;
            }
        }
        return false;
    }

    private void onEvent(Event event) {
        String data = null;
        for (TriggerDocuments.Trigger trigger : catalog.triggers()) {
            if (trigger.event() == null) {
                continue;
            }
            try {
                if (!find(trigger.event().tag(), event.tag())) {
                    continue;
                }
                if (trigger.event().data() != null && !trigger.event().data().isEmpty()) {
                    data = data == null ? Sql.toJson(event.data()) : data;
                    if (!find(trigger.event().data(), data)) {
                        continue;
                    }
                }
                if (leads.getAsBoolean()) {
                    start(trigger, event);
                }
            } catch (RuntimeException e) {
                log.warn("trigger {} on event {} #{} failed: {}", trigger.name(), event.tag(), event.id(), e.getMessage());
            }
            return; // the first matching trigger wins
        }
    }

    private void start(TriggerDocuments.Trigger trigger, Event event) {
        String reference = hostOf(event);
        if (reference == null) {
            reference = trigger.nodeName();
        }
        if (reference == null) {
            log.info("trigger {} matched event {} #{}, which names no host (and the trigger has no nodeName)", trigger.name(),
                    event.tag(), event.id());
            return;
        }
        Diagnoses.Lookup lookup = diagnoses.host(reference);
        if (lookup.host() == null) {
            log.info("trigger {} matched event {} #{}: {}", trigger.name(), event.tag(), event.id(), lookup.problem());
            return;
        }
        Host host = lookup.host();
        String key = trigger.name() + "\u0000" + host.bkHostId();
        Instant now = clock.instant();
        Instant last = lastStarted.get(key);
        if (last != null && last.plus(repeatInterval).isAfter(now)) {
            return;
        }
        String name = "drover-event." + trigger.name() + "." + event.id();
        diagnoses.start(new Diagnoses.Request(name, trigger.operationSet(), host, parameters(trigger, event), "event", trigger.name()),
                "system:diagnosis");
        // Recorded once started: a start that failed leaves the next matching event free to start it.
        lastStarted.put(key, now);
        if (lastStarted.size() > 100_000) {
            lastStarted.entrySet().removeIf(e -> e.getValue().plus(repeatInterval).isBefore(now));
        }
    }

    /**
     * The host an event is about: its {@code bk_host_id} (the server's own events), or the host of the agent that sent
     * it or that it is about ({@code id}); never a name in the tag, which an agent chooses.
     */
    private String hostOf(Event event) {
        if (event.data().get("bk_host_id") instanceof Number id) {
            return String.valueOf(id.longValue());
        }
        if (event.data().get("id") instanceof String agent) {
            Long host = hostOfAgent.apply(agent);
            return host == null ? null : String.valueOf(host);
        }
        return null;
    }

    /**
     * The trigger's parameters overlaid with the event's text values (an agent's event: its payload), as KubeDiag's
     * Kafka trigger copies a message's keys; at most 50, each value at most 4,096 characters.
     */
    static Map<String, String> parameters(TriggerDocuments.Trigger trigger, Event event) {
        Map<String, String> parameters = new java.util.LinkedHashMap<>(trigger.parameters());
        Map<?, ?> values = event.data().get("data") instanceof Map<?, ?> payload ? payload : event.data();
        int taken = 0;
        for (Map.Entry<?, ?> e : values.entrySet()) {
            if (taken == 50) {
                break;
            }
            if (e.getKey() instanceof String key && key.length() <= 253 && (e.getValue() instanceof String || e.getValue() instanceof Number)) {
                String value = String.valueOf(e.getValue());
                if (value.length() <= 4096) {
                    parameters.putIfAbsent(key, value);
                    taken++;
                }
            }
        }
        parameters.put("event.tag", event.tag());
        parameters.put("event.id", String.valueOf(event.id()));
        return parameters;
    }

    private boolean find(String pattern, String text) {
        if (pattern == null || pattern.isEmpty()) {
            return true;
        }
        if (regexes.size() > 10_000) {
            regexes.clear();
        }
        return regexes.computeIfAbsent(pattern, p -> Re2Regex.compile(p, "droverEventTemplate")).find(text);
    }

    @Override
    public void close() throws Exception {
        if (subscription != null) {
            subscription.close();
        }
        worker.shutdownNow();
    }
}
