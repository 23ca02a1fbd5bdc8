package io.drover.server.agentlink;

import io.drover.model.keys.MasterKeyInfo;
import io.drover.server.events.EventStore;
import io.drover.transport.crypto.RsaKeys;
import io.drover.transport.master.PublishQueue;
import io.drover.transport.master.RequestRefusal;
import io.drover.transport.master.SaltMaster;
import io.drover.transport.master.SessionKey;
import io.drover.transport.zmtp.ZmtpStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.security.interfaces.RSAPrivateCrtKey;
import java.util.List;
import org.jdbi.v3.core.Jdbi;

/**
 * The agent link's parts: the bridge that hands what agents send to the other features (through this package's
 * interfaces), and the agent transport bound to its ports. Built last of the server's parts, so that a port in use
 * leaves nothing else running.
 */
public final class AgentLinkModule implements AutoCloseable {

    /** What the module needs from the rest of the server, each through an interface of this package. */
    public record Needs(KeyDecisions keys, JobReports jobs, AgentPresence agents, FileRequests files, PlanLogs plans,
                        Jdbi jdbi, EventStore events, RSAPrivateCrtKey masterKey, PublishQueue publishes, SessionKey session) {
    }

    /** The transport's settings: where it listens, how it publishes, its limits, and what agents must present. */
    public record Settings(String host, int publishPort, int requestPort, SaltMaster.PublishMode publishMode,
                           SaltMaster.Limits limits, boolean requireSignedMessages, boolean allowPlainEnrollmentTokens) {
    }

    private final SaltBridge bridge;
    private final SaltMaster master;

    /** Binds the agent ports; throws when one is in use. */
    public AgentLinkModule(Needs needs, Settings settings) {
        this.bridge = new SaltBridge(needs.keys(), needs.jobs(), needs.agents(), needs.files(), needs.jdbi(), needs.events(),
                needs.plans(), settings.requireSignedMessages(), settings.allowPlainEnrollmentTokens());
        this.master = new SaltMaster(needs.masterKey(), bridge, settings.host(), settings.publishPort(),
                settings.requestPort(), settings.publishMode(), settings.limits(), needs.publishes(), needs.session());
    }

    public SaltMaster master() {
        return master;
    }

    /** The master's public key, as agents pin it. */
    public MasterKeyInfo masterKey() {
        return new MasterKeyInfo(RsaKeys.fingerprint(master.publicKeyPem()), master.publicKeyPem());
    }

    /** The transport's connections, refusals, drops and frames, and the bridge's refusals. */
    public void bindMetrics(MeterRegistry metrics) {
        for (var stats : List.of(master.requestStats(), master.publishStats())) {
            String port = stats == master.requestStats() ? "request" : "publish";
            Gauge.builder("drover.salt.connections", stats, s -> s.openConnections())
                    .tag("port", port).description("Open connections on a transport port").register(metrics);
            FunctionCounter.builder("drover.salt.connections.refused", stats, s -> s.refusedConnections())
                    .tag("port", port).description("Connections closed at once: over salt-max-connections, or accept failed").register(metrics);
            FunctionCounter.builder("drover.salt.address.connections.refused", stats,
                            s -> s.refusedFromAddress())
                    .tag("port", port).description("Connections closed at accept: their source address already held "
                            + "salt-max-connections-per-address").register(metrics);
            FunctionCounter.builder("drover.salt.messages.dropped", stats, s -> s.droppedMessages())
                    .tag("port", port).description("Messages not sent because the peer's queue was full").register(metrics);
            for (String kind : ZmtpStats.PROTOCOL_ERROR_KINDS) {
                FunctionCounter.builder("drover.salt.bad.frames", stats,
                                s -> s.protocolErrors().getOrDefault(kind, 0L))
                        .tag("port", port).tag("kind", kind)
                        .description("Connections closed for breaking the protocol or a limit, by kind").register(metrics);
            }
        }
        FunctionCounter.builder("drover.salt.address.sign.ins.refused", master, SaltMaster::refusedSignIns)
                .description("Sign-ins answered with a plain refusal, without RSA work or a stored key: their source address "
                        + "was over salt-sign-ins-per-address-per-minute").register(metrics);
        io.micrometer.core.instrument.Gauge.builder("drover.salt.signatures.waiting", master, SaltMaster::signaturesWaiting)
                .description("Requests (sign-ins, mostly) waiting for an RSA operation with the master key; a sign-in storm "
                        + "shows here").register(metrics);
        FunctionCounter.builder("drover.salt.transport.restarts", master, SaltMaster::restarts)
                .description("Transport endpoints rebuilt after they stopped").register(metrics);
        FunctionCounter.builder("drover.salt.publish.dropped", master, SaltMaster::droppedPublishes)
                .description("Publishes dropped because the publish queue was full").register(metrics);
        FunctionCounter.builder("drover.salt.publish.frames", master, SaltMaster::broadcastFrames)
                .tag("topic", "broadcast").description("Job frames sent on the publish port").register(metrics);
        FunctionCounter.builder("drover.salt.publish.frames", master, SaltMaster::targetedFrames)
                .tag("topic", "minion").description("Job frames sent on the publish port").register(metrics);
        FunctionCounter.builder("drover.agent.enrollment.plain.refused", bridge, SaltBridge::plainEnrollmentsRefused)
                .description("Sign-ins whose enrollment token came in clear and was ignored (allow-plain-enrollment-tokens is off)")
                .register(metrics);
        FunctionCounter.builder("drover.agent.events.refused", bridge, SaltBridge::refusedEvents)
                .description("Events from agents dropped: a tag outside the sender's own namespace, or a log of a plan not sent to it")
                .register(metrics);
        FunctionCounter.builder("drover.salt.publish.frames", master, SaltMaster::agentFrames)
                .tag("topic", "agent").description("Job frames sent on the publish port").register(metrics);
        for (RequestRefusal reason : RequestRefusal.values()) {
            FunctionCounter.builder("drover.salt.requests.refused", master, m -> m.refusedRequests(reason))
                    .tag("reason", reason.label())
                    .description("Agent requests refused on identity grounds: another id claimed, the wrong key, a missing or bad signature")
                    .register(metrics);
        }
    }

    @Override
    public void close() {
        master.close();
    }
}
