package io.drover.server.agentlink;

import io.drover.core.agents.AgentEventTags;
import io.drover.server.events.EventStore;
import io.drover.transport.master.AgentMode;
import io.drover.transport.master.KeyDecision;
import io.drover.transport.master.MasterHandler;
import io.drover.transport.master.RequestDeferred;
import io.drover.server.store.Sql;
import io.drover.transport.logging.RateLimitedLog;
import io.drover.transport.envelope.JobReturn;
import io.drover.transport.envelope.MalformedEnvelopeException;
import io.drover.transport.protocol.Messages;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.LoggerFactory;

/**
 * Connects the Salt master to the control plane: keys from the key store ({@link KeyDecisions}), returns and job
 * reports to the job lifecycle ({@link JobReports}), heartbeats and grains to the agent registry ({@link
 * AgentPresence}), execution plans' log messages to their plans ({@link PlanLogs}), fileserver requests to the file
 * root ({@link FileRequests}), other events to the outbox. Each is an interface of this package, so that the agent
 * link depends on no other feature and none depends back on it through the link.
 */
public final class SaltBridge implements MasterHandler {
    private final KeyDecisions keys;
    private final JobReports jobs;
    private final AgentPresence agents;
    private final FileRequests files;
    private final Jdbi jdbi;
    private final EventStore events;
    private final PlanLogs plans;
    private final java.util.concurrent.atomic.LongAdder refusedEvents = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder refusedReturns = new java.util.concurrent.atomic.LongAdder();
    private final RateLimitedLog refusals = new RateLimitedLog(LoggerFactory.getLogger(SaltBridge.class));
    private final boolean requireSignedMessages;
    private final boolean allowPlainEnrollment;
    private final java.util.concurrent.atomic.LongAdder plainEnrollments = new java.util.concurrent.atomic.LongAdder();

    /**
     * @param requireSignedMessages the {@code require-minion-sign-messages} setting
     * @param allowPlainEnrollment  the {@code allow-plain-enrollment-tokens} setting
     */
    public SaltBridge(KeyDecisions keys, JobReports jobs, AgentPresence agents, FileRequests files, Jdbi jdbi, EventStore events,
                      PlanLogs plans, boolean requireSignedMessages, boolean allowPlainEnrollment) {
        this.requireSignedMessages = requireSignedMessages;
        this.allowPlainEnrollment = allowPlainEnrollment;
        this.plans = plans;
        this.keys = keys;
        this.jobs = jobs;
        this.agents = agents;
        this.files = files;
        this.jdbi = jdbi;
        this.events = events;
    }

    /**
     * A sealed enrollment token (opened by the master) counts; one in clear only when {@code allow-plain-enrollment-tokens}
     * is set (older agents), else it is ignored, counted and logged: whoever saw it on the wire could use it too.
     */
    @Override
    public KeyDecision decideKey(String id, String publicKeyPem, Map<?, ?> authLoad) {
        Object token = enrollmentToken(authLoad, allowPlainEnrollment);
        if (token == null && authLoad.get(Messages.ENROLL_PLAIN) != null) {
            plainEnrollments.increment();
            refusals.warn("plain-enroll", "agent {} sent its enrollment token in clear; it is ignored (the agent is"
                    + " older than the server, or allow-plain-enrollment-tokens is off)", RateLimitedLog.shown(id, 80));
        }
        return deferredOnFullDisk(() -> keys.decide(id, publicKeyPem, token));
    }

    /**
     * Runs what a request asks of the database; when the disk is full the request is left unanswered
     * ({@link RequestDeferred}) so that the agent sends it again, instead of being told "bad load" and signing in anew.
     */
    private static <T> T deferredOnFullDisk(java.util.function.Supplier<T> call) {
        try {
            return call.get();
        } catch (RuntimeException e) {
            if (Sql.isDiskFull(e)) {
                throw new RequestDeferred("the database's disk is full", e);
            }
            throw e;
        }
    }

    /** The enrollment token a sign-in presents: the sealed one the master opened, or one in clear if allowed; or null. */
    static Object enrollmentToken(Map<?, ?> authLoad, boolean allowPlain) {
        Object opened = authLoad.get(Messages.ENROLL_OPENED);
        return opened != null ? opened : allowPlain ? authLoad.get(Messages.ENROLL_PLAIN) : null;
    }

    /** Sign-ins whose enrollment token came in clear and was ignored. */
    public long plainEnrollmentsRefused() {
        return plainEnrollments.sum();
    }

    @Override
    public String acceptedKey(String id) {
        return keys.acceptedKey(id);
    }

    @Override
    public void onMode(String id, AgentMode mode) {
        deferredOnFullDisk(() -> {
            keys.recordMode(id, mode);
            return null;
        });
    }

    @Override
    public AgentMode agentMode(String id) {
        return keys.mode(id);
    }

    @Override
    public boolean requireSignedMessages() {
        return requireSignedMessages;
    }

    /**
     * A return is stored once it is committed; one that is not a job return (a field missing, of another type or over
     * its limit) is acknowledged with False, counted and dropped: sent again, it would be refused again.
     */
    @Override
    public Object onReturn(String id, Map<?, ?> load) {
        agents.seen(id);
        JobReturn ret;
        try {
            ret = JobReturn.fromWire(load);
        } catch (MalformedEnvelopeException e) {
            refusedReturns.increment();
            refusals.warn("return", "dropped a malformed return from agent {}: {}", id, RateLimitedLog.shown(e.getMessage(), 200));
            return false;
        }
        return jobs.onReturn(id, ret);
    }

    /** Returns from agents dropped because they were not job returns. */
    public long refusedReturns() {
        return refusedReturns.sum();
    }

    /**
     * Heartbeats update the registry only (they are not stored as events); a plan's log line is kept when the plan was
     * sent to this agent; other events under the agent's own namespace go to the bus. An agent speaks for itself only
     * (AgentEventTags): anything else is dropped and counted ({@link #refusedEvents}).
     */
    @Override
    public Object onEvent(String id, Map<?, ?> load) {
        return deferredOnFullDisk(() -> event(id, load));
    }

    private Object event(String id, Map<?, ?> load) {
        String tag = load.get("tag") instanceof String t ? t : null;
        AgentEventTags.Verdict verdict = AgentEventTags.classify(id, tag);
        if (!verdict.allowed()) {
            return refuse(id, tag, verdict.kind());
        }
        Map<?, ?> payload = load.get("data") instanceof Map<?, ?> m ? m : Map.of();
        if (verdict.kind() == AgentEventTags.Kind.HEARTBEAT) {
            agents.heartbeat(id, payload);
            return true;
        }
        agents.seen(id);
        if (verdict.kind() == AgentEventTags.Kind.JOB_STATE) {
            jobs.onAgentState(id, verdict.jid(), verdict.jobState().equals("running")
                    ? io.drover.model.jobs.AgentJobState.RUNNING : io.drover.model.jobs.AgentJobState.RECEIVED);
            return true;
        }
        if (verdict.kind() == AgentEventTags.Kind.PLAN_LOG && !plans.onLog(id, verdict.planRun(), payload)) {
            return refuse(id, tag, verdict.kind());
        }
        if (verdict.kind() == AgentEventTags.Kind.OWN && Sql.toJson(Messages.jsonSafe(payload)).length() > MAX_EVENT_DATA_CHARS) {
            refusedEvents.increment();
            refusals.warn("event-size", "dropped an event from agent {} with tag {}: its data is over {} characters",
                    id, RateLimitedLog.shown(tag, 80), MAX_EVENT_DATA_CHARS);
            return false;
        }
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("id", id);
        data.put("data", payload);
        jdbi.useTransaction(h -> events.append(h, tag, data));
        events.publishPending();
        return true;
    }

    /**
     * The largest event an agent may fire about itself, as JSON: a plugin's exit or Salt's start event is a few hundred
     * characters; without a bound one host could fill the event log (and the disk every agent's returns need).
     */
    static final int MAX_EVENT_DATA_CHARS = 64 * 1024;

    private boolean refuse(String id, String tag, AgentEventTags.Kind kind) {
        refusedEvents.increment();
        refusals.warn("event", "dropped an event from agent {} with tag {} ({}): an agent may fire only tags under drover/agent/{}/",
                id, RateLimitedLog.shown(tag, 80), kind == AgentEventTags.Kind.PLAN_LOG ? "a plan not sent to it"
                        : kind == AgentEventTags.Kind.RESERVED ? "written by the server only" : "not its own", id);
        return false;
    }

    /** Events from agents dropped because their tag was not the sender's to fire. */
    public long refusedEvents() {
        return refusedEvents.sum();
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
        return deferredOnFullDisk(() -> pillar(id, load));
    }

    private Map<String, Object> pillar(String id, Map<?, ?> load) {
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
