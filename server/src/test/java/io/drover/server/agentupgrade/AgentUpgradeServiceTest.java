package io.drover.server.agentupgrade;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.drover.core.Hashing;
import io.drover.core.testing.AgentPackages;
import io.drover.model.agentapi.AgentCall;
import io.drover.model.agentapi.AgentResult;
import io.drover.model.agentupgrade.AgentUpgradeHost;
import io.drover.model.agentupgrade.AgentUpgradeRequest;
import io.drover.model.agentupgrade.AgentUpgradeTask;
import io.drover.model.agentupgrade.RolloutStatus;
import io.drover.model.agentupgrade.UpgradeHostState;
import io.drover.server.agentpackages.AgentPackageService;
import io.drover.server.agentpackages.AgentPackageStore;
import io.drover.server.auth.Principal;
import io.drover.server.cluster.WorkLeaseStore;
import io.drover.server.errors.DomainException;
import io.drover.server.jobs.AgentCalls;
import io.drover.server.jobs.CallOptions;
import io.drover.server.store.Database;
import io.drover.server.testing.ManualClock;
import io.drover.server.testing.OnBothDatabases;
import io.drover.server.testing.TestDatabases;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The upgrade service on a real database and real agent packages, with scripted agents: the server module has no
 * agent, and a real agent cannot take an upgrade unless it runs from an installed layout (dist's end-to-end tests
 * upgrade one). The agents here answer {@code test.version} and {@code agent.upgrade} as a script says, and each read
 * of the clock moves it a second, so that a wait of 10 s ends after ten looks.
 */
class AgentUpgradeServiceTest {
    static final Principal ADMIN = Principal.system("test");

    @TempDir
    Path dir;
    Database db;
    Scripted agents;
    AgentPackageService packages;
    AgentUpgradeService service;
    String sha256;

    @BeforeEach
    void start() throws Exception {
        db = TestDatabases.sqlite().open();
        agents = new Scripted();
        packages = packages(db);
        sha256 = Hashing.sha256(new ByteArrayInputStream(AgentPackages.of("2.0.0", "x86_64")));
        service = service(db, 50, new Ticking(), true);
    }

    AgentPackageService packages(Database database) {
        AgentPackageService out = new AgentPackageService(new AgentPackageStore(database.jdbi()), dir.resolve("agent-packages"),
                dir.resolve("files"), 1 << 20, Clock.systemUTC());
        out.upload(ADMIN, new ByteArrayInputStream(AgentPackages.of("2.0.0", "x86_64")), null);
        return out;
    }

    /** {@code alone}: a server without a cluster, which fails at start every task its last run left. */
    AgentUpgradeService service(Database database, int maxHandOvers, Clock clock, boolean alone) {
        return new AgentUpgradeService(database.jdbi(), (p, tgt, type) -> List.of(tgt.split(",")), agents, agents,
                database == db ? packages : packages(database), new WorkLeaseStore(database.jdbi(), clock, alone), clock,
                new HostUpgrade.Timing(Duration.ofMillis(5), Duration.ofSeconds(1), Duration.ZERO, Duration.ofSeconds(1),
                        Duration.ZERO), maxHandOvers);
    }

    @AfterEach
    void stop() {
        agents.release.countDown();
        service.close();
        db.close();
    }

    /** Scripted agents: online, architecture, business, the version they answer and what they do with agent.upgrade. */
    static final class Scripted implements AgentCalls, AgentUpgradeService.Agents {
        enum Does { UPGRADE, ROLL_BACK, REFUSE, HANG, GO_OFFLINE }

        final Map<String, Boolean> online = new ConcurrentHashMap<>();
        final Map<String, String> arch = new ConcurrentHashMap<>();
        final Map<String, Long> biz = new ConcurrentHashMap<>();
        final Map<String, String> answers = new ConcurrentHashMap<>();
        final Map<String, String> heartbeats = new ConcurrentHashMap<>();
        final Map<String, Does> does = new ConcurrentHashMap<>();
        final List<String> calls = new CopyOnWriteArrayList<>();
        final List<AgentCall.UpgradeAgent> upgrades = new CopyOnWriteArrayList<>();
        final List<java.util.Set<Long>> limitedTo = new CopyOnWriteArrayList<>();
        final CountDownLatch release = new CountDownLatch(1);
        /** Agents whose answer to test.version holds no version. */
        final java.util.Set<String> versionless = ConcurrentHashMap.newKeySet();

        void add(String id, String version, Does what) {
            online.put(id, true);
            arch.put(id, "x86_64");
            biz.put(id, 2L);
            answers.put(id, version);
            heartbeats.put(id, version);
            does.put(id, what);
        }

        @Override
        public boolean online(String id) {
            return online.getOrDefault(id, false);
        }

        @Override
        public String version(String id) {
            return heartbeats.get(id);
        }

        @Override
        public String arch(String id) {
            return arch.get(id);
        }

        @Override
        public Map<String, Long> businesses(Collection<String> ids) {
            Map<String, Long> out = new HashMap<>();
            ids.forEach(id -> {
                if (biz.containsKey(id)) {
                    out.put(id, biz.get(id));
                }
            });
            return out;
        }

        @Override
        public AgentCalls forBusinesses(java.util.Set<Long> bizIds) {
            limitedTo.add(bizIds);
            return this;
        }

        @Override
        @SuppressWarnings("unchecked")
        public <R extends AgentResult> Outcome<R> call(String agentId, AgentCall<R> call, CallOptions options) {
            calls.add(agentId + " " + call.getClass().getSimpleName());
            if (!online(agentId)) {
                return Outcome.unanswered("j", "no answer");
            }
            Outcome<?> out = switch (call) {
                case AgentCall.AgentVersion v -> new Outcome<AgentResult.Text>(true,
                        new AgentResult.Text(versionless.contains(agentId) ? null : answers.get(agentId)), "j", "ok");
                case AgentCall.UpgradeAgent u -> upgrade(agentId, u);
                default -> throw new IllegalArgumentException("not scripted: " + call);
            };
            return (Outcome<R>) out;
        }

        private Outcome<AgentResult.UpgradeHandedOver> upgrade(String agentId, AgentCall.UpgradeAgent u) {
            upgrades.add(u);
            String from = answers.get(agentId);
            switch (does.get(agentId)) {
                case UPGRADE -> answers.put(agentId, u.version()); // its heartbeat comes later: test.version tells first
                case ROLL_BACK -> { }
                case GO_OFFLINE -> online.put(agentId, false);
                case HANG -> {
                    try {
                        release.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return new Outcome<>(false, null, "j", "released", true);
                }
                case REFUSE -> {
                    return new Outcome<>(false, null, "j", "agent.upgrade: this agent does not run from an installed layout", true);
                }
            }
            return new Outcome<>(true, new AgentResult.UpgradeHandedOver(from, u.version(), "/var/log/drover\u0000-upgrade.log"), "j", "ok");
        }
    }

    /** A clock that moves a second each time it is read. */
    static final class Ticking extends Clock {
        private final AtomicLong seconds = new AtomicLong(1_700_000_000L);

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochSecond(seconds.incrementAndGet());
        }
    }

    static AgentUpgradeRequest request(String agents, int batchSize, double ratio) {
        return new AgentUpgradeRequest(agents, "list", "2.0.0", 2L, batchSize, ratio, 10, null);
    }

    AgentUpgradeTask awaitEnd(long id) {
        await().atMost(Duration.ofSeconds(20)).until(() -> !service.get(ADMIN, id).status().wire().equals("running"));
        return service.get(ADMIN, id);
    }

    static Map<String, AgentUpgradeHost> hosts(AgentUpgradeTask task) {
        Map<String, AgentUpgradeHost> out = new HashMap<>();
        task.hosts().forEach(h -> out.put(h.agentId(), h));
        return out;
    }

    @Test
    void anAgentIsSentThePackageOfItsArchitectureAndSucceedsOnceItReportsTheVersionOneAtItAlreadyIsSkipped() throws Exception {
        agents.add("a", "1.0.0", Scripted.Does.UPGRADE);
        agents.add("b", "2.0.0", Scripted.Does.REFUSE);
        AgentUpgradeTask task = awaitEnd(service.start(ADMIN, request("a,b", 1, 0)).id());
        assertThat(task.status().wire()).isEqualTo("succeeded");
        Map<String, AgentUpgradeHost> hosts = hosts(task);
        assertThat(hosts.get("a").status().wire()).isEqualTo("succeeded");
        assertThat(hosts.get("a").fromVersion()).isEqualTo("1.0.0");
        assertThat(hosts.get("a").version()).isEqualTo("2.0.0");
        assertThat(hosts.get("a").arch()).isEqualTo("x86_64");
        assertThat(hosts.get("a").log()).as("what the agent reported, printable").isEqualTo("/var/log/drover?-upgrade.log");
        assertThat(hosts.get("a").finishedAt()).isNotNull();
        assertThat(hosts.get("b").status().wire()).isEqualTo("skipped");
        assertThat(hosts.get("b").batch()).isEqualTo(2);
        assertThat(agents.calls).doesNotContain("b UpgradeAgent");
        assertThat(task.succeeded()).isEqualTo(1);
        assertThat(task.skipped()).isEqualTo(1);
        AgentCall.UpgradeAgent sent = agents.upgrades.get(0);
        assertThat(sent).isEqualTo(new AgentCall.UpgradeAgent("agent-packages/drover-agent-2.0.0-linux-x86_64.tar.gz", sha256, "2.0.0", 10));
        Path placed = dir.resolve("files").resolve(sent.source());
        assertThat(Hashing.sha256(Files.newInputStream(placed))).isEqualTo(sha256);
        assertThat(agents.limitedTo).containsExactly(java.util.Set.of(2L));
    }

    @Test
    void anOfflineAgentAndOneBackWithItsOldVersionFailAndTheRatioStopsTheRolloutBeforeTheNextBatch() {
        agents.add("c", "1.0.0", Scripted.Does.UPGRADE);
        agents.online.put("c", false);
        agents.add("d", "1.0.0", Scripted.Does.ROLL_BACK);
        agents.add("e", "1.0.0", Scripted.Does.UPGRADE);
        agents.add("f", "1.0.0", Scripted.Does.UPGRADE);
        AgentUpgradeTask task = awaitEnd(service.start(ADMIN, request("c,d,e,f", 2, 0.5)).id());
        assertThat(task.status().wire()).isEqualTo("stopped");
        Map<String, AgentUpgradeHost> hosts = hosts(task);
        assertThat(hosts.get("c").status().wire()).isEqualTo("failed");
        assertThat(hosts.get("c").error()).startsWith("offline");
        assertThat(agents.calls).noneMatch(c -> c.startsWith("c "));
        assertThat(hosts.get("d").status().wire()).isEqualTo("failed");
        assertThat(hosts.get("d").error()).isEqualTo("rolled back to 1.0.0; see /var/log/drover?-upgrade.log on the host");
        assertThat(hosts.get("e").status().wire()).isEqualTo("not_started");
        assertThat(hosts.get("f").status().wire()).isEqualTo("not_started");
        assertThat(agents.calls).noneMatch(c -> c.startsWith("e ") || c.startsWith("f "));
        assertThat(task.failed()).isEqualTo(2);
        assertThat(task.notStarted()).isEqualTo(2);
    }

    @Test
    void aRefusalFailsItsAgentAndWithRatioOneTheRolloutGoesOnToFail() {
        agents.add("g", "1.0.0", Scripted.Does.REFUSE);
        agents.add("h", "1.0.0", Scripted.Does.UPGRADE);
        AgentUpgradeTask task = awaitEnd(service.start(ADMIN, request("g,h", 1, 1)).id());
        assertThat(task.status().wire()).isEqualTo("failed");
        assertThat(hosts(task).get("g").error()).isEqualTo("refused the upgrade: agent.upgrade: this agent does not run from an installed layout");
        assertThat(hosts(task).get("h").status().wire()).isEqualTo("succeeded");
    }

    @Test
    void refusesAgentsOutsideTheBusinessMissingPackagesAndAgentsInARunningUpgrade() {
        agents.add("in", "1.0.0", Scripted.Does.HANG);
        agents.add("out", "1.0.0", Scripted.Does.UPGRADE);
        agents.biz.put("out", 7L);
        agents.add("nobiz", "1.0.0", Scripted.Does.UPGRADE);
        agents.biz.remove("nobiz");
        agents.add("arm", "1.0.0", Scripted.Does.UPGRADE);
        agents.arch.put("arm", "aarch64");
        assertThatThrownBy(() -> service.start(ADMIN, request("in,out", 1, 0))).isInstanceOf(DomainException.class)
                .hasMessageContaining("1 of the 2 agents the target names are not (first: out)");
        assertThatThrownBy(() -> service.start(ADMIN, new AgentUpgradeRequest("in,out", "list", "2.0.0", null, 1, 0.0, 10, null)))
                .hasMessageContaining("bk_biz_id");
        assertThatThrownBy(() -> service.start(ADMIN, new AgentUpgradeRequest("in,nobiz", "list", "2.0.0", null, 1, 0.0, 10, null)))
                .hasMessageContaining("bk_biz_id");
        assertThatThrownBy(() -> service.start(Principal.system("x").limitedTo(java.util.Set.of(7L)), request("in", 1, 0)))
                .hasMessageContaining("may not touch business 2");
        assertThatThrownBy(() -> service.start(ADMIN, request("in,arm", 1, 0))).hasMessageContaining("no agent package 2.0.0 is stored for aarch64");
        assertThat(service.list(ADMIN)).isEmpty();
        long running = service.start(ADMIN, request("in", 1, 0)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> agents.upgrades.size() == 1);
        assertThatThrownBy(() -> service.start(ADMIN, request("in", 1, 0))).hasMessageContaining("still running");
        agents.release.countDown();
        assertThat(awaitEnd(running).status().wire()).isEqualTo("failed");
        assertThat(service.list(ADMIN)).hasSize(1);
        assertThat(service.list(Principal.system("x").limitedTo(java.util.Set.of(7L)))).isEmpty();
        assertThatThrownBy(() -> service.get(Principal.system("x").limitedTo(java.util.Set.of(7L)), running)).hasMessageContaining("does not exist");
    }

    @OnBothDatabases
    void theStoreKeepsTasksAndAgentsOneRunningTaskPerAgentAndFailsAbandonedTasks(String kind) {
        TestDatabases.on(kind, database -> {
            UpgradeStore store = new UpgradeStore(database.jdbi(), Clock.systemUTC());
            long id = store.create(new UpgradeStore.NewTask(2, "2.0.0", "web-*", "glob", 2, 0.25, 180, true, "alice",
                    List.of(List.of("a", "b"), List.of("c", "d"))));
            assertThat(store.busyAgents()).containsExactlyInAnyOrder("a", "b", "c", "d");
            assertThatThrownBy(() -> store.create(new UpgradeStore.NewTask(3, "2.0.0", "c", "list", 1, 0, 180, false, "bob",
                    List.of(List.of("x"), List.of("c"))))).isInstanceOfSatisfying(DomainException.class, e -> {
                        assertThat(e.kind()).isEqualTo(DomainException.Kind.CONFLICT);
                        assertThat(e.getMessage()).contains("still running");
                    });
            assertThat(store.list(null, 10)).as("nothing of the refused task is left").hasSize(1);
            var now = java.time.OffsetDateTime.now();
            store.saveHost(id, "a", new UpgradeStore.HostRow("x86_64", "1.0.0", "2.0.0", UpgradeHostState.SUCCEEDED,
                    null, "/var/log/u.log", now, now));
            store.saveHost(id, "b", new UpgradeStore.HostRow("aarch64", "1.0.0", "1.0.0", UpgradeHostState.HANDED_OVER,
                    null, null, now, null));
            store.saveHost(id, "c", new UpgradeStore.HostRow("x86_64", "1.0.0", "1.0.0", UpgradeHostState.PENDING,
                    null, null, now, null));
            AgentUpgradeTask task = store.get(id);
            assertThat(task.maxFailureRatio()).isEqualTo(0.25);
            assertThat(task.allowDowngrade()).isTrue();
            assertThat(task.hosts()).extracting(AgentUpgradeHost::agentId).containsExactly("a", "b", "c", "d");
            assertThat(task.hosts()).extracting(AgentUpgradeHost::batch).containsExactly(1, 1, 2, 2);
            assertThat(task.hosts().get(0).log()).isEqualTo("/var/log/u.log");
            assertThat(task.succeeded()).isEqualTo(1);
            assertThat(store.failAbandoned(List.of(id))).isEqualTo(1);
            assertThat(store.failAbandoned(List.of(id))).as("failed already").isZero();
            task = store.get(id);
            assertThat(task.status().wire()).isEqualTo("failed");
            assertThat(task.hosts()).extracting(h -> h.status().wire())
                    .as("c was being handed the package: it may have taken it").containsExactly("succeeded", "failed", "failed", "not_started");
            assertThat(task.hosts().get(1).error()).contains("the server running the upgrade stopped");
            assertThat(store.busyAgents()).isEmpty();
            store.finish(id, RolloutStatus.SUCCEEDED);
            assertThat(store.get(id).status().wire()).as("a late end of the server that lost it changes nothing").isEqualTo("failed");
            long other = store.create(new UpgradeStore.NewTask(3, "2.0.0", "c", "list", 1, 0, 180, false, "bob", List.of(List.of("c"))));
            assertThat(store.list(null, 10)).extracting(AgentUpgradeTask::id).containsExactly(other, id);
            assertThat(store.list(List.of(2L), 10)).singleElement().satisfies(t -> {
                assertThat(t.total()).isEqualTo(4);
                assertThat(t.failed()).isEqualTo(2);
                assertThat(t.notStarted()).isEqualTo(1);
                assertThat(t.hosts()).isEmpty();
            });
            assertThat(store.list(List.of(3L, 9L), 10)).extracting(AgentUpgradeTask::id).containsExactly(other);
            assertThat(store.list(List.of(3L, 2L), 1)).extracting(AgentUpgradeTask::id).containsExactly(other);
        });
    }

    /**
     * Two servers of a cluster on one database: a task of a server that died (its lease is not renewed) holds its
     * agents until the lease runs out; then the other server fails it and may upgrade them.
     */
    @OnBothDatabases
    void aTaskWhoseServerStoppedIsFailedOnceItsLeaseRunsOut(String kind) {
        TestDatabases.on(kind, database -> {
            ManualClock clock = new ManualClock(Instant.parse("2026-12-01T10:00:00Z").toEpochMilli());
            UpgradeStore store = new UpgradeStore(database.jdbi(), clock);
            WorkLeaseStore dead = new WorkLeaseStore(database.jdbi(), clock, false);
            long abandoned = store.create(new UpgradeStore.NewTask(2, "2.0.0", "k1,k2", "list", 1, 0, 10, false, "alice",
                    List.of(List.of("k1"), List.of("k2"))));
            dead.own(WorkLeaseStore.Work.AGENT_UPGRADE, abandoned);
            agents.add("k1", "1.0.0", Scripted.Does.UPGRADE);
            agents.add("k2", "2.0.0", Scripted.Does.UPGRADE);
            try (AgentUpgradeService other = service(database, 50, clock, false)) {
                assertThatThrownBy(() -> other.start(ADMIN, request("k1", 1, 0))).hasMessageContaining("still running");
                assertThat(other.get(ADMIN, abandoned).status().wire()).isEqualTo("running");
                clock.advance(WorkLeaseStore.TERM.plusSeconds(1));
                other.failAbandoned(false);
                AgentUpgradeTask failed = other.get(ADMIN, abandoned);
                assertThat(failed.status().wire()).isEqualTo("failed");
                assertThat(failed.notStarted()).isEqualTo(2);
                assertThat(store.busyAgents()).isEmpty();
                long next = other.start(ADMIN, request("k2", 1, 0)).id(); // at the version already: skipped
                await().atMost(Duration.ofSeconds(20)).until(() -> !other.get(ADMIN, next).status().wire().equals("running"));
                assertThat(other.get(ADMIN, next).status().wire()).isEqualTo("succeeded");
            }
        });
    }

    @Test
    void aCancelStartsNoFurtherBatchAndEndsTheTaskCancelled() {
        agents.add("x1", "1.0.0", Scripted.Does.HANG);
        agents.add("x2", "1.0.0", Scripted.Does.UPGRADE);
        long id = service.start(ADMIN, request("x1,x2", 1, 1)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> agents.upgrades.size() == 1);
        Principal otherBusiness = Principal.system("x").limitedTo(java.util.Set.of(7L));
        assertThatThrownBy(() -> service.cancel(otherBusiness, id)).hasMessageContaining("does not exist");
        assertThat(service.cancel(ADMIN, id).status().wire()).as("until the batch under way ends").isEqualTo("running");
        agents.release.countDown();
        AgentUpgradeTask task = awaitEnd(id);
        assertThat(task.status().wire()).isEqualTo("cancelled");
        assertThat(hosts(task).get("x1").status().wire()).isEqualTo("failed");
        assertThat(hosts(task).get("x2").status().wire()).isEqualTo("not_started");
        assertThat(agents.calls).noneMatch(c -> c.startsWith("x2 "));
        assertThatThrownBy(() -> service.cancel(ADMIN, id)).isInstanceOfSatisfying(DomainException.class, e -> {
            assertThat(e.kind()).isEqualTo(DomainException.Kind.CONFLICT);
            assertThat(e.getMessage()).contains("is cancelled");
        });
        assertThat(awaitEnd(service.start(ADMIN, request("x2", 1, 0)).id()).status().wire()).as("its agents are free").isEqualTo("succeeded");
    }

    @Test
    void anAgentOnANewerVersionFailsUnlessADowngradeIsAllowed() {
        agents.add("n1", "3.0.0", Scripted.Does.UPGRADE);
        AgentUpgradeTask refused = awaitEnd(service.start(ADMIN, request("n1", 1, 0)).id());
        assertThat(refused.status().wire()).isEqualTo("failed");
        assertThat(hosts(refused).get("n1").error()).isEqualTo("runs 3.0.0, newer than 2.0.0: a downgrade must be allowed "
                + "(allow_downgrade, drover agent upgrade --allow-downgrade)");
        assertThat(agents.upgrades).isEmpty();
        AgentUpgradeTask allowed = awaitEnd(service.start(ADMIN, new AgentUpgradeRequest("n1", "list", "2.0.0", 2L, 1, 0.0, 10, true)).id());
        assertThat(allowed.allowDowngrade()).isTrue();
        assertThat(allowed.status().wire()).isEqualTo("succeeded");
        assertThat(hosts(allowed).get("n1").fromVersion()).isEqualTo("3.0.0");
    }

    @Test
    void anAgentWithoutAVersionFailsAndAnAgentGoneOfflineIsNotAskedForItsVersion() {
        agents.add("v1", "1.0.0", Scripted.Does.UPGRADE);
        agents.versionless.add("v1");
        agents.add("v2", "1.0.0", Scripted.Does.GO_OFFLINE);
        AgentUpgradeTask task = awaitEnd(service.start(ADMIN, request("v1,v2", 2, 1)).id());
        assertThat(hosts(task).get("v1").error()).isEqualTo("did not report a version: its answer to test.version was empty");
        assertThat(hosts(task).get("v2").error()).startsWith("did not come back with 2.0.0 within 10 s");
        assertThat(agents.calls.stream().filter(c -> c.equals("v2 AgentVersion")))
                .as("asked once before the hand-over, never while offline").hasSize(1);
    }

    @Test
    void handOversAtTheSameTimeAreCappedOverTheServer() {
        try (AgentUpgradeService capped = service(db, 1, new Ticking(), false)) {
            agents.add("c1", "1.0.0", Scripted.Does.HANG);
            agents.add("c2", "1.0.0", Scripted.Does.HANG);
            long first = capped.start(ADMIN, request("c1", 1, 0)).id();
            long second = capped.start(ADMIN, request("c2", 1, 0)).id();
            await().atMost(Duration.ofSeconds(10)).until(() -> agents.upgrades.size() == 1);
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> agents.upgrades.size() == 1);
            agents.release.countDown();
            await().atMost(Duration.ofSeconds(20)).until(() -> !capped.get(ADMIN, first).status().wire().equals("running")
                    && !capped.get(ADMIN, second).status().wire().equals("running"));
            assertThat(agents.upgrades).hasSize(2);
        }
    }

    @Test
    void aTargetWithControlOrFormatCharactersIsRefusedAndListsHoldOnlyTheTasksOfTheCallersBusinesses() {
        for (String tgt : List.of("a\u202eb", "a\u0000", "a\nb", "a\u200fb", "a\u001b[2J")) {
            assertThatThrownBy(() -> service.start(ADMIN, request(tgt, 1, 0))).isInstanceOfSatisfying(DomainException.class, e -> {
                assertThat(e.kind()).isEqualTo(DomainException.Kind.INVALID);
                assertThat(e.getMessage()).contains("control or format characters");
            });
        }
        agents.add("s2", "2.0.0", Scripted.Does.UPGRADE);
        agents.add("s7", "2.0.0", Scripted.Does.UPGRADE);
        agents.biz.put("s7", 7L);
        long two = awaitEnd(service.start(ADMIN, request("s2", 1, 0)).id()).id();
        long seven = awaitEnd(service.start(ADMIN, new AgentUpgradeRequest("s7", "list", "2.0.0", 7L, 1, 0.0, 10, null)).id()).id();
        assertThat(service.list(ADMIN)).extracting(AgentUpgradeTask::id).containsExactly(seven, two);
        assertThat(service.list(Principal.system("x").limitedTo(java.util.Set.of(7L)))).extracting(AgentUpgradeTask::id).containsExactly(seven);
        assertThat(service.list(Principal.system("x").limitedTo(java.util.Set.of(2L, 9L)))).extracting(AgentUpgradeTask::id).containsExactly(two);
    }
}
