package io.drover.server.jobs;

import io.drover.server.agents.AgentRegistry;
import io.drover.server.events.EventStore;
import io.drover.server.files.FileServer;
import io.drover.server.keys.KeyStore;
import io.drover.server.plans.ExecutionPlans;
import io.drover.transport.master.AgentMode;
import io.drover.transport.master.KeyDecision;
import io.drover.transport.master.MasterHandler;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;

/**
 * Connects the Salt master to the control plane: keys from the key store, returns to jobs, heartbeats and grains
 * to the agent registry, execution plans' log messages to their plans, fileserver requests to the file root, other
 * events to the bus.
 */
public final class SaltBridge implements MasterHandler {
    private final KeyStore keys;
    private final JobService jobs;
    private final AgentRegistry agents;
    private final FileServer files;
    private final Jdbi jdbi;
    private final EventStore events;
    private final ExecutionPlans plans;
    private static final String PLAN_LOG_PREFIX = "drover/plan/";
    private final boolean requireSignedMessages;

    /** @param requireSignedMessages the {@code require-minion-sign-messages} setting */
    public SaltBridge(KeyStore keys, JobService jobs, AgentRegistry agents, FileServer files, Jdbi jdbi, EventStore events,
                      ExecutionPlans plans, boolean requireSignedMessages) {
        this.requireSignedMessages = requireSignedMessages;
        this.plans = plans;
        this.keys = keys;
        this.jobs = jobs;
        this.agents = agents;
        this.files = files;
        this.jdbi = jdbi;
        this.events = events;
    }

    @Override
    public KeyDecision decideKey(String id, String publicKeyPem, Map<?, ?> authLoad) {
        return keys.decide(id, publicKeyPem, authLoad.get("drover_enroll"));
    }

    @Override
    public String acceptedKey(String id) {
        return keys.acceptedKey(id);
    }

    @Override
    public void onMode(String id, AgentMode mode) {
        keys.recordMode(id, mode);
    }

    @Override
    public AgentMode agentMode(String id) {
        return keys.mode(id);
    }

    @Override
    public boolean requireSignedMessages() {
        return requireSignedMessages;
    }

    @Override
    public Object onReturn(String id, Map<?, ?> load) {
        agents.seen(id);
        return jobs.onReturn(id, load);
    }

    /** Heartbeats update the registry only (they are not stored as events); any other event goes to the bus. */
    @Override
    public Object onEvent(String id, Map<?, ?> load) {
        if (!(load.get("tag") instanceof String tag) || tag.isBlank() || tag.length() > 255) {
            return false;
        }
        Map<?, ?> payload = load.get("data") instanceof Map<?, ?> m ? m : Map.of();
        if (tag.equals("drover/agent/" + id + "/heartbeat")) {
            agents.heartbeat(id, payload);
            return true;
        }
        agents.seen(id);
        if (tag.startsWith(PLAN_LOG_PREFIX) && tag.endsWith("/log")) {
            plans.onLog(id, tag.substring(PLAN_LOG_PREFIX.length(), tag.length() - "/log".length()), payload);
        }
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("id", id);
        data.put("data", payload);
        jdbi.useTransaction(h -> events.append(h, tag, data));
        events.publishPending();
        return true;
    }

    /** The transport rebuilt an endpoint: recorded as {@code drover/transport/restarted} with which one. */
    @Override
    public void onTransportRestart(String what) {
        jdbi.useTransaction(h -> events.append(h, "drover/transport/restarted", Map.of("endpoint", what)));
        events.publishPending();
    }

    /** A salt-minion asks for its pillar at start with its grains: they are kept for targeting. */
    @Override
    public Map<String, Object> onPillar(String id, Map<?, ?> load) {
        if (load.get("grains") instanceof Map<?, ?> grains) {
            agents.heartbeat(id, Map.of("grains", grains));
        } else {
            agents.seen(id);
        }
        return Map.of();
    }

    @Override
    public Object onCommand(String id, String cmd, Map<?, ?> load) {
        if (id != null) {
            agents.seen(id);
        }
        return switch (cmd) {
            case "_file_list" -> files.list(load.get("prefix") instanceof String p ? p : "");
            case "_file_hash" -> files.hash(load.get("path"));
            case "_serve_file" -> files.serve(load.get("path"), load.get("loc"));
            case "_mine" -> true;
            default -> null;
        };
    }
}
