package io.drover.server.agents;

import io.drover.core.agents.AgentLinkRule;
import io.drover.model.agents.AgentInfo;
import io.drover.model.agents.AgentLinkRequest;
import io.drover.model.agents.LinkConflict;
import io.drover.model.agents.LinkConflictReason;
import io.drover.model.inventory.Host;
import io.drover.server.auth.Principal;
import io.drover.server.events.EventStore;
import io.drover.server.errors.DomainException;
import io.drover.server.inventory.InventoryService;
import io.drover.server.store.Sql;
import io.drover.transport.protocol.Messages;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agents behind accepted keys: what they reported (version, grains), the inventory host each runs on, and
 * presence. Drover agents send a heartbeat event every interval; one silent for three intervals is lost. A plain
 * salt-minion sends no heartbeat: it is online from its first request and never marked lost.
 * <p>
 * Presence is kept in memory; new agents and online/lost changes are written every second in one transaction,
 * last-seen times every 30 seconds in one batch, so a hundred thousand heartbeats (or a thousand first returns) do
 * not become as many transactions.
 */
public final class AgentRegistry implements io.drover.server.agentlink.AgentPresence {
    private static final Logger log = LoggerFactory.getLogger(AgentRegistry.class);
    public static final int MISSED_HEARTBEATS = 3;
    private final java.util.function.BooleanSupplier watchesRemote;
    private Instant nextRemoteCheck = Instant.MIN;
    /** Last-seen times are for display (presence is decided in memory): written every 30 s, in one batch. */
    private static final Duration LAST_SEEN_FLUSH = Duration.ofSeconds(30);
    private volatile Instant nextLastSeenFlush = Instant.MIN;

    /** One agent's live state; fields are written by request threads and read by the presence check. */
    private static final class Agent {
        final String id;
        volatile Long bizId;
        volatile Long hostId;
        volatile String version;
        volatile Map<String, Object> grains = Map.of();
        volatile String grainsDigest;
        volatile int heartbeatSeconds;
        volatile boolean online;
        volatile Instant lastSeen;
        volatile boolean lastSeenDirty;
        /** Whether the agent's row exists; new agents are inserted by the next presence check, in one batch. */
        volatile boolean persisted;
        /** An online/lost change not yet written, with its reason. */
        volatile String pendingReason;
        /**
         * Connected to another server of the cluster (known from its online events): that server tracks its
         * heartbeats and says when it is lost; this one never marks it lost itself.
         */
        volatile boolean remote;

        Agent(String id) {
            this.id = id;
        }
    }

    private final Jdbi jdbi;
    private final AgentStore repository = new AgentStore();
    private final EventStore events;
    private final InventoryService inventory;
    private final Long defaultBizId;
    private final Clock clock;
    private final ConcurrentHashMap<String, Agent> agents = new ConcurrentHashMap<>();

    /** {@code defaultBizId}: the business of agents accepted without an enrollment token (null: none). */
    public AgentRegistry(Jdbi jdbi, EventStore events, InventoryService inventory, Long defaultBizId, Clock clock) {
        this(jdbi, events, inventory, defaultBizId, clock, () -> false);
    }

    /**
     * @param watchesRemote whether this server is the one of its cluster that marks lost the agents of servers that
     *                      stopped (it holds the pruning duty)
     */
    public AgentRegistry(Jdbi jdbi, EventStore events, InventoryService inventory, Long defaultBizId, Clock clock,
                         java.util.function.BooleanSupplier watchesRemote) {
        this.watchesRemote = watchesRemote;
        this.jdbi = jdbi;
        this.events = events;
        this.inventory = inventory;
        this.defaultBizId = defaultBizId;
        this.clock = clock;
        load();
    }

    /** Agents online when the server stopped get three intervals from now to be heard from again. */
    private void load() {
        Instant now = clock.instant();
        for (AgentStore.Row r : jdbi.withHandle(repository::all)) {
            Agent a = new Agent(r.id());
            a.bizId = r.bizId();
            a.hostId = r.hostId();
            a.version = r.version();
            a.grains = r.grains();
            a.grainsDigest = r.grainsDigest();
            a.heartbeatSeconds = r.heartbeatSeconds();
            a.online = r.online();
            a.lastSeen = a.online ? now : r.lastSeen() == null ? null : r.lastSeen().toInstant();
            a.persisted = true;
            agents.put(a.id, a);
        }
    }

    /** Records the business an enrollment token placed an agent in (inside the key decision's transaction). */
    public void enrolled(Handle h, String id, long bizId) {
        repository.placeInBusiness(h, id, bizId);
        Agent a = agents.computeIfAbsent(id, Agent::new);
        a.bizId = bizId;
        a.persisted = true;
    }

    /**
     * Any authenticated request from an accepted minion: it is alive. Memory only: the row of a new agent and the
     * online event are written by the next presence check, so a thousand first returns cost one transaction.
     */
    @Override
    public void seen(String id) {
        Agent a = agents.computeIfAbsent(id, Agent::new);
        a.lastSeen = clock.instant();
        a.lastSeenDirty = true;
        synchronized (a) {
            if (!a.online) {
                a.online = true;
                a.pendingReason = "heard from";
            } else if (a.remote) {
                // It moved here from another server (which may have died): the online event tells the others where it
                // is now, and writes when it was last heard, so that none of them takes it for lost.
                a.pendingReason = "moved here";
            }
            a.remote = false;
        }
    }

    /** Writes the row of an agent that is not in the database yet (before its grains are stored). */
    private void persist(Agent a) {
        if (a.persisted) {
            return;
        }
        jdbi.useTransaction(h -> repository.insertIfAbsent(h, a.id, a.bizId));
        a.persisted = true;
    }

    /**
     * The largest grains kept, as JSON: a salt-minion's are 5 to 20 thousand characters; larger ones would cost every
     * server memory and the database a write per heartbeat.
     */
    static final int MAX_GRAINS_CHARS = 256 * 1024;
    private final io.drover.transport.logging.RateLimitedLog oversized = new io.drover.transport.logging.RateLimitedLog(log);

    /**
     * A heartbeat event ({@code drover/agent/<id>/heartbeat}): version, interval and grains. Grains are written only
     * when they changed. An unlinked agent with a business and an address is linked to its host when
     * {@link AgentLinkRule} allows it; a linked agent whose address changed keeps its host (the change is recorded).
     */
    @SuppressWarnings("unchecked")
    @Override
    public void heartbeat(String id, Map<?, ?> data) {
        seen(id);
        Agent a = agents.get(id);
        String version = data.get("version") instanceof String v && v.length() <= 64 ? v : a.version;
        int interval = data.get("interval") instanceof Number n && n.intValue() > 0 && n.intValue() <= 86_400
                ? n.intValue() : a.heartbeatSeconds;
        Map<String, Object> reported = data.get("grains") instanceof Map<?, ?> g ? (Map<String, Object>) Messages.jsonSafe(g) : a.grains;
        String reportedJson = Sql.toJson(reported);
        boolean oversize = reportedJson.length() > MAX_GRAINS_CHARS && reported != a.grains;
        if (oversize) {
            oversized.warn("grains", "agent {} reported grains of {} characters, over {}: its grains are kept as they were",
                    id, reportedJson.length(), MAX_GRAINS_CHARS);
        }
        Map<String, Object> grains = oversize ? a.grains : reported;
        String json = oversize ? Sql.toJson(grains) : reportedJson;
        String digest = io.drover.core.Hashing.sha256(json);
        boolean changed = !digest.equals(a.grainsDigest) || !java.util.Objects.equals(version, a.version)
                || interval != a.heartbeatSeconds;
        if (changed) {
            Map<String, Object> before = a.grains;
            persist(a);
            jdbi.useHandle(h -> repository.updateFacts(h, id, version, json, digest, interval));
            a.version = version;
            a.grains = grains;
            a.grainsDigest = digest;
            a.heartbeatSeconds = interval;
            Long host = a.hostId;
            if (host != null && AgentLinkRule.addressChanged(claimedIp(before), claimedCloud(before), claimedIp(grains),
                    claimedCloud(grains))) {
                addressChanged(a, host, before);
            }
        }
        if (a.hostId == null) {
            link(a);
        }
    }

    /** A linked agent claims another address: recorded with the host's business; the link stays as it is. */
    private void addressChanged(Agent a, long host, Map<String, Object> before) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("id", a.id);
        data.put("bk_host_id", host);
        data.put("bk_biz_id", inventory.hostBusinesses(Set.of(host)).get(host));
        data.put("previous_ip", claimedIp(before));
        data.put("claimed_ip", claimedIp(a.grains));
        data.put("bk_cloud_id", claimedCloud(a.grains));
        log.warn("agent {} linked to host {} now claims address {} (was {}): the link is kept", a.id, host,
                claimedIp(a.grains), claimedIp(before));
        jdbi.useTransaction(h -> events.append(h, "drover/agent/" + a.id + "/address-changed", data));
        events.publishPending();
    }

    /** The business an agent's admission gave it: its enrollment token's (or its last link's), else {@code agent-biz}. */
    private Long admittedBusiness(Agent a) {
        return a.bizId != null ? a.bizId : defaultBizId;
    }

    private static String claimedIp(Map<String, Object> grains) {
        return text(grains.get("drover_innerip"));
    }

    private static long claimedCloud(Map<String, Object> grains) {
        return grains.get("drover_cloud_id") instanceof Number n ? n.longValue() : 0L;
    }

    /** What linking by the claimed address came to: the host and business linked (nulls: not linked). */
    private record LinkOutcome(Long hostId, Long bizId) {
    }

    /**
     * Links an agent to the host at the address it claims (created in its business when there is none) if that host
     * is of the agent's business and has no other agent; else records the conflict, once for as long as it lasts.
     */
    private void link(Agent a) {
        Long bizId = admittedBusiness(a);
        String ip = claimedIp(a.grains);
        if (bizId == null || ip == null) {
            return;
        }
        long cloudId = claimedCloud(a.grains);
        try {
            Host host = inventory.agentHost(bizId, cloudId, ip, text(a.grains.get("host")),
                    text(a.grains.get("kernel")) == null ? null : text(a.grains.get("kernel")).toLowerCase(Locale.ROOT),
                    text(a.grains.get("cpuarch")));
            long hostId = host.bkHostId();
            LinkOutcome outcome = jdbi.inTransaction(h -> {
                Optional<AgentStore.Linked> row = repository.lockAgent(h, a.id);
                if (row.isEmpty()) {
                    return new LinkOutcome(null, null); // its key was deleted meanwhile
                }
                if (row.get().hostId() != null) {
                    return new LinkOutcome(row.get().hostId(), null); // linked meanwhile (by an admin, or by another server)
                }
                Long hostBiz = repository.lockHostBusiness(h, hostId).orElse(null);
                if (hostBiz == null) {
                    return new LinkOutcome(null, null); // the host was deleted meanwhile: the next heartbeat tries again
                }
                Optional<LinkConflictReason> refused = AgentLinkRule.automatic(bizId, hostBiz,
                        repository.otherAgentOnHost(h, hostId, a.id).isPresent());
                if (refused.isEmpty()) {
                    repository.link(h, a.id, hostId, bizId);
                    events.append(h, "drover/agent/" + a.id + "/linked", Map.of("id", a.id, "bk_host_id", hostId,
                            "bk_biz_id", hostBiz, "bk_host_innerip", ip));
                    return new LinkOutcome(hostId, bizId);
                }
                LinkConflict conflict = new LinkConflict(refused.get(), ip, cloudId, hostId, OffsetDateTime.now(clock));
                if (!repository.conflict(h, a.id).map(c -> sameConflict(c, conflict)).orElse(false)) {
                    repository.saveConflict(h, a.id, conflict);
                    events.append(h, "drover/agent/" + a.id + "/link-conflict", conflictEvent(a.id, bizId, conflict));
                    log.warn("agent {} of business {} claims address {} (cloud {}) of host {}: not linked ({})", a.id, bizId,
                            ip, cloudId, hostId, conflict.reason().wireName());
                }
                return new LinkOutcome(null, null);
            });
            events.publishPending();
            if (outcome.hostId() != null) {
                a.hostId = outcome.hostId();
                if (outcome.bizId() != null) {
                    a.bizId = outcome.bizId();
                }
            }
        } catch (DomainException e) {
            log.warn("agent {} cannot be linked to a host in business {} at {}: {}", a.id, bizId, ip, e.getMessage());
        }
    }

    private static boolean sameConflict(LinkConflict a, LinkConflict b) {
        return a.reason() == b.reason() && a.claimedIp().equals(b.claimedIp()) && a.bkCloudId() == b.bkCloudId()
                && java.util.Objects.equals(a.bkHostId(), b.bkHostId());
    }

    /**
     * The {@code link-conflict} event, of the agent's business: scoped tokens of that business see it, so it names
     * the host only when the host is of that business too ({@code host_has_agent}); for {@code other_business} it
     * says that the address is taken elsewhere, never by which host or business.
     */
    private static Map<String, Object> conflictEvent(String id, long bizId, LinkConflict conflict) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("id", id);
        data.put("bk_biz_id", bizId);
        data.put("reason", conflict.reason().wireName());
        data.put("claimed_ip", conflict.claimedIp());
        data.put("bk_cloud_id", conflict.bkCloudId());
        if (conflict.reason() == LinkConflictReason.HOST_HAS_AGENT) {
            data.put("conflict_host_id", conflict.bkHostId());
        }
        return data;
    }

    /**
     * An admin links an agent to a host ({@code POST /agents/{id}/link}): refused (409) over another agent unless
     * forced, which unlinks that agent (recorded), and to a host of another business than the agent's unless the
     * admin moves the agent there. The agent takes the host's business; its link conflict is over.
     */
    public AgentInfo linkByAdmin(Principal p, String id, AgentLinkRequest request) {
        if (request.bkHostId() == null) {
            throw DomainException.invalid("bk_host_id", "is required: the host to link the agent to");
        }
        if (request.bkHostId() <= 0) {
            throw DomainException.invalid("bk_host_id", "'" + request.bkHostId() + "' is not a positive id");
        }
        long hostId = request.bkHostId();
        Agent a = agents.get(id);
        if (a == null) {
            throw DomainException.notFound("agent", id);
        }
        Long agentBiz = a.bizId;
        if (agentBiz != null && !p.covers(agentBiz)) {
            throw DomainException.notFound("agent", id); // another business's agent is as missing
        }
        boolean force = Boolean.TRUE.equals(request.force());
        String[] unlinked = new String[1];
        long hostBiz = jdbi.inTransaction(h -> {
            Long before = repository.lockAgent(h, id).orElseThrow(() -> DomainException.notFound("agent", id)).hostId();
            // another business's host is answered as a missing one
            long biz = repository.lockHostBusiness(h, hostId).filter(p::covers)
                    .orElseThrow(() -> DomainException.invalid("bk_host_id", "host " + hostId + " does not exist"));
            String other = repository.otherAgentOnHost(h, hostId, id).orElse(null);
            Optional<LinkConflictReason> refused = AgentLinkRule.byAdmin(agentBiz, biz, other != null, force,
                    Boolean.TRUE.equals(request.moveBusiness()));
            if (refused.isPresent()) {
                throw switch (refused.get()) {
                    case HOST_HAS_AGENT -> DomainException.conflict("host_has_agent", "host " + hostId + " already has agent "
                            + other + "; send force: true (drover agent link --force) to unlink it and link " + id);
                    case OTHER_BUSINESS -> DomainException.conflict("other_business", "host " + hostId + " is in business "
                            + biz + " and agent " + id + " in business " + agentBiz + "; send move_business: true "
                            + "(drover agent link --move-business) to move the agent to business " + biz);
                };
            }
            if (other != null) {
                repository.unlink(h, other);
                Map<String, Object> data = new LinkedHashMap<>();
                data.put("id", other);
                data.put("previous_host_id", hostId);
                data.put("bk_biz_id", biz);
                data.put("reason", "host " + hostId + " linked to agent " + id + " by " + p.name());
                events.append(h, "drover/agent/" + other + "/unlinked", data);
                unlinked[0] = other;
            }
            repository.link(h, id, hostId, biz);
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("id", id);
            data.put("bk_host_id", hostId);
            data.put("bk_biz_id", biz);
            data.put("by", p.name());
            data.put("previous_host_id", before);
            data.put("previous_biz_id", agentBiz);
            events.append(h, "drover/agent/" + id + "/linked", data);
            return biz;
        });
        events.publishPending();
        if (unlinked[0] != null) {
            Agent o = agents.get(unlinked[0]);
            if (o != null) {
                o.hostId = null;
            }
        }
        a.hostId = hostId;
        a.bizId = hostBiz;
        log.info("agent {} linked to host {} of business {} by {}{}", id, hostId, hostBiz, p.name(),
                unlinked[0] == null ? "" : " (agent " + unlinked[0] + " unlinked from it)");
        return get(p, id);
    }

    private static String text(Object value) {
        return value instanceof String s && !s.isBlank() ? s : null;
    }

    /**
     * Marks agents lost that missed three heartbeats; writes new agents, online/lost changes (with their events)
     * in one transaction; and every 30 s the last-seen times that changed. Runs every second.
     */
    public void checkPresence() {
        Instant now = clock.instant();
        for (Agent a : agents.values()) {
            synchronized (a) {
                if (a.online && !a.remote && a.heartbeatSeconds > 0 && a.lastSeen != null
                        && a.lastSeen.plus(Duration.ofSeconds((long) a.heartbeatSeconds * MISSED_HEARTBEATS)).isBefore(now)) {
                    a.online = false;
                    a.pendingReason = "no heartbeat for " + MISSED_HEARTBEATS + " intervals of " + a.heartbeatSeconds + " s";
                }
            }
        }
        if (!now.isBefore(nextRemoteCheck) && watchesRemote.getAsBoolean()) {
            nextRemoteCheck = now.plus(LAST_SEEN_FLUSH);
            loseSilentRemoteAgents(now);
        }
        List<Agent> fresh = agents.values().stream().filter(a -> !a.persisted).toList();
        List<Agent> changed = agents.values().stream().filter(a -> a.pendingReason != null).toList();
        if (!fresh.isEmpty() || !changed.isEmpty()) {
            jdbi.useTransaction(h -> {
                repository.insertNew(h, fresh.stream().map(a -> a.id).toList());
                List<Map.Entry<String, Map<String, Object>>> fired = new ArrayList<>();
                List<AgentStore.Presence> presence = new ArrayList<>();
                for (Agent a : changed) {
                    String reason;
                    boolean online;
                    synchronized (a) {
                        reason = a.pendingReason;
                        online = a.online;
                        a.pendingReason = null;
                    }
                    presence.add(new AgentStore.Presence(a.id, online,
                            a.lastSeen == null ? null : a.lastSeen.atOffset(ZoneOffset.UTC)));
                    Map<String, Object> data = new LinkedHashMap<>();
                    data.put("id", a.id);
                    data.put("bk_host_id", a.hostId);
                    data.put("reason", reason);
                    fired.add(Map.entry("drover/agent/" + a.id + "/" + (online ? "online" : "lost"), data));
                    if (!online || changed.size() <= 100) {
                        log.info("agent {} is {} ({})", a.id, online ? "online" : "lost", reason);
                    }
                }
                repository.updatePresence(h, presence);
                events.appendAll(h, fired);
            });
            fresh.forEach(a -> a.persisted = true);
            events.publishPending();
            if (changed.size() > 100) {
                log.info("{} agents changed presence", changed.size());
            }
        }
        if (now.isBefore(nextLastSeenFlush)) {
            return;
        }
        nextLastSeenFlush = now.plus(LAST_SEEN_FLUSH);
        List<Agent> dirty = agents.values().stream().filter(a -> a.lastSeenDirty && a.persisted).toList();
        if (!dirty.isEmpty()) {
            Map<String, OffsetDateTime> seen = new LinkedHashMap<>();
            for (Agent a : dirty) {
                a.lastSeenDirty = false;
                seen.put(a.id, a.lastSeen.atOffset(ZoneOffset.UTC));
            }
            try {
                jdbi.useTransaction(h -> repository.updateLastSeen(h, seen));
            } catch (RuntimeException e) {
                dirty.forEach(a -> a.lastSeenDirty = true); // written by the next flush instead
                throw e;
            }
        }
    }

    /**
     * Agents online through another server that no server has heard from for three heartbeats plus the time servers
     * take to write when they last heard one (that server died and the agent did not move): lost, with an event that
     * tells the other servers. Done by one server of the cluster.
     */
    private void loseSilentRemoteAgents(Instant now) {
        List<String> remote = agents.values().stream().filter(a -> a.remote && a.online).map(a -> a.id).toList();
        for (AgentStore.Heard heard : jdbi.withHandle(h -> repository.heard(h, remote))) {
            Agent a = agents.get(heard.id());
            if (a == null || heard.lastSeen() == null || heard.heartbeatSeconds() <= 0) {
                continue;
            }
            Instant silentSince = heard.lastSeen().toInstant();
            if (silentSince.plus(Duration.ofSeconds((long) heard.heartbeatSeconds() * MISSED_HEARTBEATS)).plus(LAST_SEEN_FLUSH)
                    .isBefore(now)) {
                synchronized (a) {
                    if (a.remote && a.online) {
                        a.online = false;
                        a.lastSeen = silentSince;
                        a.pendingReason = "not heard from by any server since " + silentSince + " (its server stopped)";
                    }
                }
            }
        }
    }

    /** Forgets an agent whose key was deleted. */
    public void forget(Handle h, String id) {
        repository.delete(h, id);
        agents.remove(id);
    }

    /** The grains an agent reported (empty when it has not). */
    public Map<String, Object> grains(String id) {
        Agent a = agents.get(id);
        return a == null ? Map.of() : a.grains;
    }

    /**
     * The business of each agent's host as it is now (hosts move between businesses); agents not linked to a host
     * belong to no business and are left out.
     */
    public Map<String, Long> businesses(Collection<String> ids) {
        Map<String, Long> hostOf = new HashMap<>();
        for (String id : ids) {
            Agent a = agents.get(id);
            if (a != null && a.hostId != null) {
                hostOf.put(id, a.hostId);
            }
        }
        Map<Long, Long> bizOfHost = inventory.hostBusinesses(Set.copyOf(hostOf.values()));
        Map<String, Long> out = new HashMap<>();
        hostOf.forEach((id, host) -> {
            Long biz = bizOfHost.get(host);
            if (biz != null) {
                out.put(id, biz);
            }
        });
        return out;
    }

    /**
     * A host was deleted ({@code drover/inventory/host/deleted}, here or on another server): the agent linked to it is
     * linked to none, as its row already is (the foreign key clears it). Were the link kept in memory, a host created
     * later with the same id, in any business, would take the agent with it. Its next heartbeat may link it anew.
     */
    public void hostDeleted(io.drover.model.events.Event event) {
        if (!(event.data().get("id") instanceof Number deleted)) {
            return;
        }
        long host = deleted.longValue();
        for (Agent a : agents.values()) {
            synchronized (a) {
                if (a.hostId != null && a.hostId == host) {
                    a.hostId = null;
                    log.info("agent {} is linked to no host: host {} was deleted", a.id, host);
                }
            }
        }
    }

    /** Host id → agent id, for every agent linked to a host. */
    public Map<Long, String> agentsByHost() {
        Map<Long, String> byHost = new java.util.HashMap<>();
        agents.values().forEach(a -> {
            if (a.hostId != null) {
                byHost.put(a.hostId, a.id);
            }
        });
        return byHost;
    }

    /** The agent linked to this host (null: none). */
    public String agentOfHost(long hostId) {
        for (Agent a : agents.values()) {
            if (a.hostId != null && a.hostId == hostId) {
                return a.id;
            }
        }
        return null;
    }

    /** The host this agent is linked to (null: none, or no such agent). */
    public Long hostOf(String id) {
        Agent a = agents.get(id);
        return a == null ? null : a.hostId;
    }

    /**
     * Presence another server of the cluster reported ({@code drover/agent/<id>/online|lost|linked|unlinked}): an
     * agent online there is online here too, with its host; a lost one is lost unless it is connected here now.
     */
    public void peerReported(io.drover.model.events.Event event) {
        String[] parts = event.tag().split("/");
        if (parts.length != 4 || !parts[0].equals("drover") || !parts[1].equals("agent")) {
            return;
        }
        Agent a = agents.computeIfAbsent(parts[2], Agent::new);
        if (List.of("online", "lost", "linked").contains(parts[3]) && event.data().get("bk_host_id") instanceof Number host) {
            a.hostId = host.longValue();
        }
        if (parts[3].equals("linked") && event.data().get("bk_biz_id") instanceof Number biz) {
            a.bizId = biz.longValue();
        }
        synchronized (a) {
            switch (parts[3]) {
                case "unlinked" -> a.hostId = null;
                case "online" -> {
                    a.remote = true;
                    a.online = true;
                    a.persisted = true;
                }
                case "lost" -> {
                    if (a.remote) {
                        a.online = false;
                    } else if (a.online) {
                        // Another server lost it while it is connected here (it moved here after that server last
                        // heard it): telling them again that it is online corrects them.
                        a.pendingReason = "connected here";
                    }
                }
                default -> { }
            }
        }
    }

    /** The version the agent last reported in a heartbeat (null: none, or no such agent). */
    public String version(String id) {
        Agent a = agents.get(id);
        return a == null ? null : a.version;
    }

    public boolean online(String id) {
        Agent a = agents.get(id);
        return a != null && a.online;
    }

    /**
     * Every key with its agent, as {@code drover agent list} shows them. A business-scoped token sees the agents of
     * its hosts and the unlinked agents its businesses admitted; the host of a link conflict only when it may see
     * that host's business.
     */
    public List<AgentInfo> list(Principal p) {
        Map<String, AgentStore.KeyRow> states = new LinkedHashMap<>();
        Map<String, LinkConflict> conflicts = new HashMap<>();
        jdbi.useHandle(h -> {
            states.putAll(repository.keyStates(h));
            conflicts.putAll(repository.conflicts(h));
        });
        Map<Long, Long> conflictHostBiz = inventory.hostBusinesses(conflicts.values().stream().map(LinkConflict::bkHostId)
                .filter(java.util.Objects::nonNull).collect(java.util.stream.Collectors.toSet()));
        Map<String, Long> current = p.allBusinesses() ? Map.of() : businesses(states.keySet());
        List<AgentInfo> out = new ArrayList<>();
        states.forEach((id, key) -> {
            Agent a = agents.get(id);
            if (a == null) {
                if (p.allBusinesses()) {
                    out.add(new AgentInfo(id, key.state(), null, null, null, false, null, null, null, key.mode()));
                }
                return;
            }
            Long hostId = a.hostId;
            if (!p.allBusinesses() && !(hostId != null ? p.covers(current.get(id)) : p.covers(admittedBusiness(a)))) {
                return;
            }
            LinkConflict conflict = hostId != null ? null : conflicts.get(id);
            if (conflict != null && conflict.bkHostId() != null && !p.covers(conflictHostBiz.get(conflict.bkHostId()))) {
                conflict = new LinkConflict(conflict.reason(), conflict.claimedIp(), conflict.bkCloudId(), null, conflict.since());
            }
            out.add(new AgentInfo(id, key.state(), hostId, a.bizId, text(a.grains.get("drover_innerip")),
                    a.online, a.version, a.lastSeen == null ? null : a.lastSeen.atOffset(ZoneOffset.UTC), conflict, key.mode()));
        });
        return out;
    }

    public AgentInfo get(Principal p, String id) {
        return list(p).stream().filter(a -> a.id().equals(id)).findFirst()
                .orElseThrow(() -> DomainException.notFound("agent", id));
    }
}
