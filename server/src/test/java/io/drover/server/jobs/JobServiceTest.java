package io.drover.server.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.drover.model.jobs.AgentJobState;
import io.drover.model.jobs.JobRequest;
import io.drover.model.jobs.JobStarted;
import io.drover.server.auth.Principal;
import io.drover.server.events.EventBus;
import io.drover.server.testing.JobServiceFixture;
import io.drover.server.testing.TestDatabases;
import io.drover.transport.envelope.JobReturn;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The job service on SQLite: while a job waits here for returns, it holds this server's interest in other servers' returns. */
class JobServiceTest {
    @Test
    void aJobWantsPeersReturnsUntilItsLastReturnAndAJobThatDidNotGoOutNotAtAll() {
        TestDatabases.on("sqlite", db -> {
            Clock clock = Clock.systemUTC();
            EventBus bus = new EventBus();
            AtomicBoolean wanted = new AtomicBoolean();
            bus.onPeerReturnInterest(wanted::set);
            JobServiceFixture fixture = JobServiceFixture.on(db, bus, clock, "auto-1", "auto-2");
            AtomicBoolean publishFails = new AtomicBoolean();
            JobService jobs = fixture.jobs((load, minions) -> {
                if (publishFails.get()) {
                    throw new IllegalStateException("the transport is closed");
                }
            }, bus::wantPeerReturns);
            try {
                Principal admin = Principal.system("test");
                JobStarted started = jobs.start(admin, new JobRequest("auto-*", "glob", "test.ping", List.of(), Map.of(), 30));
                assertThat(wanted).isTrue();
                jobs.onReturn("auto-1", JobReturn.fromWire(Map.of("jid", started.jid(), "fun", "test.ping", "return", true)));
                assertThat(wanted).as("auto-2 has not answered").isTrue();
                jobs.onReturn("auto-2", JobReturn.fromWire(Map.of("jid", started.jid(), "fun", "test.ping", "return", true)));
                await().atMost(Duration.ofSeconds(5)).until(() -> !wanted.get());

                publishFails.set(true);
                assertThatThrownBy(() -> jobs.start(admin, new JobRequest("auto-1", "list", "test.ping", List.of(), Map.of(), 30)))
                        .hasMessageContaining("closed");
                assertThat(wanted).as("nobody waits on a job that did not go out").isFalse();
            } finally {
                jobs.close();
            }
        });
    }

    /**
     * States recorded by the service from what happens, never inferred: the agents' reports (only forward, only their
     * own), the sweep of timed-out jobs (once per job), an agent's loss, a return.
     */
    @Test
    void eachAgentsStateIsRecordedFromWhatHappens() {
        TestDatabases.on("sqlite", db -> {
            io.drover.server.testing.ManualClock clock = new io.drover.server.testing.ManualClock(System.currentTimeMillis());
            EventBus bus = new EventBus();
            JobServiceFixture fixture = JobServiceFixture.on(db, bus, clock, "auto-1", "auto-2", "auto-3", "auto-4");
            JobService jobs = fixture.jobs((load, minions) -> { });
            try {
                Principal admin = Principal.system("test");
                String jid = jobs.start(admin, new JobRequest("auto-*", "glob", "cmd.run", List.of("sleep 9"), Map.of(), 30)).jid();
                assertThat(jobs.get(jid).states()).containsOnly(Map.entry("auto-1", AgentJobState.PUBLISHED),
                        Map.entry("auto-2", AgentJobState.PUBLISHED), Map.entry("auto-3", AgentJobState.PUBLISHED),
                        Map.entry("auto-4", AgentJobState.PUBLISHED));
                jobs.onAgentState("auto-1", jid, AgentJobState.RECEIVED);
                jobs.onAgentState("auto-2", jid, AgentJobState.RUNNING);
                jobs.onAgentState("auto-2", jid, AgentJobState.RECEIVED); // late: stays RUNNING
                jobs.onAgentState("ghost", jid, AgentJobState.RUNNING); // not targeted: nothing
                jobs.onReturn("auto-3", JobReturn.fromWire(Map.of("jid", jid, "fun", "cmd.run", "return", "", "retcode", 0)));
                jobs.agentLost(new io.drover.model.events.Event(1, "drover/agent/auto-4/lost", java.time.OffsetDateTime.now(clock),
                        Map.of("id", "auto-4")));
                assertThat(jobs.recordTimeouts()).as("not yet").isZero();
                clock.advance(Duration.ofSeconds(31));
                assertThat(jobs.recordTimeouts()).isEqualTo(2);
                assertThat(jobs.recordTimeouts()).as("each job swept once").isZero();
                assertThat(jobs.get(jid).states()).containsOnly(Map.entry("auto-1", AgentJobState.TIMED_OUT),
                        Map.entry("auto-2", AgentJobState.TIMED_OUT), Map.entry("auto-3", AgentJobState.RETURNED),
                        Map.entry("auto-4", AgentJobState.AGENT_LOST));
                assertThat(jobs.get(jid).states()).doesNotContainKey("ghost");
                assertThat(jobs.get(jid).counts()).containsOnly(Map.entry(AgentJobState.TIMED_OUT, 2),
                        Map.entry(AgentJobState.RETURNED, 1), Map.entry(AgentJobState.AGENT_LOST, 1));
                jobs.onReturn("auto-1", JobReturn.fromWire(Map.of("jid", jid, "fun", "cmd.run", "return", "late", "retcode", 0)));
                assertThat(jobs.get(jid).states().get("auto-1")).as("a late return is the last fact").isEqualTo(AgentJobState.RETURNED);
            } finally {
                jobs.close();
            }
        });
    }

    @Test
    void aJobWhoseLoadCannotBePublishedIsRefusedBeforeAnythingIsStoredOrSent() {
        TestDatabases.on("sqlite", db -> {
            Clock clock = Clock.systemUTC();
            JobServiceFixture fixture = JobServiceFixture.on(db, new EventBus(), clock, "auto-1");
            List<io.drover.transport.envelope.PublishLoad> published = new java.util.concurrent.CopyOnWriteArrayList<>();
            JobService jobs = fixture.jobs((load, minions) -> published.add(load));
            try {
                Principal admin = Principal.system("test");
                String fun = "test." + "p".repeat(300); // a function name over the envelope's limit
                assertThatThrownBy(() -> jobs.start(admin, new JobRequest("auto-1", "list", fun, List.of(), Map.of(), 30)))
                        .isInstanceOf(io.drover.server.errors.DomainException.class).hasMessageContaining("fun");
                assertThat(jobs.list(admin, null, 10)).isEmpty();
                assertThat(published).isEmpty();
                JobStarted ok = jobs.start(admin, new JobRequest("auto-1", "list", "test.ping", List.of(), Map.of(), 30));
                assertThat(published).extracting(io.drover.transport.envelope.PublishLoad::toWire).containsExactly(
                        new java.util.LinkedHashMap<>(Map.of("fun", "test.ping", "arg", List.of(), "tgt", List.of("auto-1"),
                                "tgt_type", "list", "jid", ok.jid(), "ret", "", "user", admin.name())));
                assertThat(published.getFirst().toWire().keySet()).containsExactly("fun", "arg", "tgt", "tgt_type", "jid", "ret", "user");
            } finally {
                jobs.close();
            }
        });
    }

    @Test
    void aJobThatCarriesASecretIsStoredEventedAndAnsweredRedactedAndSentAgainWhole() {
        TestDatabases.on("sqlite", db -> {
            Clock clock = Clock.systemUTC();
            EventBus bus = new EventBus();
            JobServiceFixture fixture = JobServiceFixture.on(db, bus, clock, "auto-1", "auto-2");
            fixture.keys().recordMode("auto-1", io.drover.transport.master.AgentMode.DROVER);
            fixture.keys().recordMode("auto-2", io.drover.transport.master.AgentMode.SALT);
            List<Map<String, Object>> published = new java.util.concurrent.CopyOnWriteArrayList<>();
            JobService jobs = fixture.jobs((load, minions) -> published.add(load.toWire()));
            String content = "password = hunter2-secret\n";
            try {
                var sent = new io.drover.model.agentapi.AgentCall.WriteFile("etc/app.conf", content, "0600");
                var shown = new io.drover.model.agentapi.AgentCall.WriteFile("etc/app.conf", "«redacted»", "0600");
                JobStarted started = jobs.start(Principal.system("test"), "auto-1", "list", sent, shown, 30, s -> { });
                assertThat(published).singleElement().satisfies(load -> assertThat(load.get("arg").toString()).contains("hunter2-secret"));
                jobs.onReturn("auto-1", JobReturn.fromWire(Map.of("jid", started.jid(), "fun", "file.write", "return", Map.of("path", "etc/app.conf",
                        "bytes", content.length(), "md5", io.drover.core.Hashing.md5(content).toUpperCase(), "echo", "wrote " + content))));
                String stored = db.jdbi().withHandle(h -> h.createQuery("SELECT arg || ' ' || COALESCE(sealed_arg, '') FROM job")
                        .mapTo(String.class).one()) + db.jdbi().withHandle(h -> String.join(" ", h.createQuery(
                        "SELECT ret FROM job_agent WHERE ret IS NOT NULL").mapTo(String.class).list())) + db.jdbi().withHandle(h -> String.join(" ",
                        h.createQuery("SELECT CAST(data AS VARCHAR) FROM event_outbox").mapTo(String.class).list()));
                assertThat(stored).contains("«redacted»").contains("bytes").doesNotContain("hunter2")
                        .doesNotContainIgnoringCase(io.drover.core.Hashing.md5(content));
                assertThat(jobs.get(started.jid()).arg().toString()).contains("«redacted»").doesNotContain("hunter2");

                // A salt-minion's jobs travel under the shared session key: a secret is not sent to it, nor anything stored.
                long jobsBefore = db.jdbi().<Long, RuntimeException>withHandle(h -> h.createQuery("SELECT COUNT(*) FROM job").mapTo(Long.class).one());
                assertThatThrownBy(() -> jobs.start(Principal.system("test"), "auto-2", "list", sent, shown, 30, s -> { }))
                        .isInstanceOfSatisfying(io.drover.server.errors.DomainException.class, e -> {
                            assertThat(e.code()).isEqualTo("secret_on_shared_key");
                            assertThat(e.getMessage()).contains("auto-2").doesNotContain("hunter2");
                        });
                assertThat(published).hasSize(1);
                long jobsAfter = db.jdbi().<Long, RuntimeException>withHandle(h -> h.createQuery("SELECT COUNT(*) FROM job").mapTo(Long.class).one());
                assertThat(jobsAfter).isEqualTo(jobsBefore);
                // A job without a secret still goes to it.
                jobs.start(Principal.system("test"), "auto-2", "list", new io.drover.model.agentapi.AgentCall.WriteFile("etc/plain.conf",
                        "x = 1\n", "0644"), new io.drover.model.agentapi.AgentCall.WriteFile("etc/plain.conf", "x = 1\n", "0644"), 30, s -> { });
                assertThat(published).hasSize(2);
                published.removeLast();

                // Sent again (a resumed step): the agent gets the secret, not its redaction.
                db.jdbi().useHandle(h -> h.execute("UPDATE job_agent SET ret = NULL, retcode = NULL, success = NULL, returned_at = NULL"));
                assertThat(jobs.redeliver(started.jid(), "auto-1")).isTrue();
                assertThat(published).hasSize(2).last().satisfies(load -> assertThat(load.get("arg").toString()).contains("hunter2-secret"));
            } finally {
                jobs.close();
            }
        });
    }

    /**
     * A scoped token's job that reaches a salt-minion is published naming its agents in a list (a salt-minion matches a
     * broadcast job's target itself); one that reaches Drover agents only keeps its target, which each agent's own frame
     * carries. Another business's agent named in a list is in neither the job nor its published target.
     */
    @Test
    void aScopedTokensJobIsPublishedNamingItsAgentsWhenItReachesSaltMinions() {
        TestDatabases.on("sqlite", db -> {
            db.jdbi().useTransaction(h -> {
                h.execute("INSERT INTO business (bk_biz_id, bk_biz_name, attributes) VALUES (7, 'seven', '{}'), (8, 'eight', '{}')");
                h.execute("INSERT INTO host (bk_host_id, bk_biz_id, bk_host_innerip, bk_cloud_id, attributes, bk_module_ids) "
                        + "VALUES (7001, 7, '10.9.7.1', 0, '{}', ''), (8001, 8, '10.9.8.1', 0, '{}', ''), (8002, 8, '10.9.8.2', 0, '{}', '')");
            });
            JobServiceFixture fixture = JobServiceFixture.on(db, new EventBus(), Clock.systemUTC(), "auto-1", "auto-2", "auto-3");
            Map<String, String> addresses = Map.of("auto-1", "10.9.8.1", "auto-2", "10.9.8.2", "auto-3", "10.9.7.1");
            addresses.forEach((id, ip) -> {
                db.jdbi().useTransaction(h -> fixture.agents().enrolled(h, id, ip.startsWith("10.9.8") ? 8 : 7));
                fixture.agents().heartbeat(id, Map.of("version", "test", "interval", 30,
                        "grains", Map.of("drover_innerip", ip, "drover_cloud_id", 0)));
            });
            fixture.keys().recordMode("auto-1", io.drover.transport.master.AgentMode.SALT);
            fixture.keys().recordMode("auto-2", io.drover.transport.master.AgentMode.DROVER);
            fixture.keys().recordMode("auto-3", io.drover.transport.master.AgentMode.SALT);
            List<io.drover.transport.envelope.PublishLoad> published = new java.util.concurrent.CopyOnWriteArrayList<>();
            JobService jobs = fixture.jobs((load, minions) -> published.add(load));
            try {
                Principal eight = Principal.system("test").limitedTo(java.util.Set.of(8L));
                assertThat(jobs.start(eight, new JobRequest("auto-1,auto-3", "list", "test.ping", List.of(), Map.of(), 30)).minions())
                        .containsExactly("auto-1");
                assertThat(published.getLast().tgt()).isEqualTo(List.of("auto-1"));
                jobs.start(eight, new JobRequest("auto-*", "glob", "test.ping", List.of(), Map.of(), 30));
                assertThat(published.getLast().tgt()).isEqualTo(List.of("auto-1", "auto-2"));
                assertThat(published.getLast().tgtType()).isEqualTo("list");
                jobs.start(eight, new JobRequest("auto-2", "glob", "test.ping", List.of(), Map.of(), 30));
                assertThat(published.getLast().tgt()).isEqualTo("auto-2");
                jobs.start(Principal.system("test"), new JobRequest("auto-*", "glob", "test.ping", List.of(), Map.of(), 30));
                assertThat(published.getLast().tgt()).isEqualTo("auto-*");
            } finally {
                jobs.close();
            }
        });
    }

    /** Salt's greedy default (a minion without grains is expected by grain targets) is kept for salt-minions only. */
    @Test
    void aDroverAgentReportingNoGrainsIsNotSentGrainTargetedJobs() {
        TestDatabases.on("sqlite", db -> {
            io.drover.server.testing.JobServiceFixture fixture = io.drover.server.testing.JobServiceFixture.on(db,
                    new io.drover.server.events.EventBus(), java.time.Clock.systemUTC(), "auto-1", "auto-2");
            fixture.keys().recordMode("auto-1", io.drover.transport.master.AgentMode.DROVER);
            fixture.keys().recordMode("auto-2", io.drover.transport.master.AgentMode.SALT);
            JobService jobs = fixture.jobs((load, minions) -> { });
            try {
                assertThat(jobs.resolve(Principal.system("test"), "G@os:Linux", "compound").minions()).containsExactly("auto-2");
                assertThat(jobs.resolve(Principal.system("test"), "auto-*", "glob").minions()).containsExactly("auto-1", "auto-2");
            } finally {
                jobs.close();
            }
        });
    }

    @Test
    void oneAgentsReturnIsReadAloneAndOnlyByAPrincipalWhoseBusinessesHoldTheJobsAgents() {
        TestDatabases.on("sqlite", db -> {
            JobService jobs = JobServiceFixture.start(db, "auto-1", "auto-2");
            try {
                Principal admin = Principal.system("test");
                Principal otherBusiness = admin.limitedTo(java.util.Set.of(99L)); // the agents are in no business
                // another business's agents are matched by no target of a scoped token: as if there were none
                for (String[] target : List.of(new String[] {"auto-*", "glob"}, new String[] {"auto-1", "list"},
                        new String[] {"G@os:*", "compound"}, new String[] {"nobody-*", "glob"})) {
                    assertThatThrownBy(() -> jobs.start(otherBusiness, new JobRequest(target[0], target[1], "test.ping", List.of(), Map.of(), 30)))
                            .as(target[0]).hasMessage("tgt '" + target[0] + "' matches no accepted minion");
                }
                String jid = jobs.start(admin, new JobRequest("auto-*", "glob", "test.ping", List.of(), Map.of(), 30)).jid();
                assertThat(jobs.awaitReturn(admin, jid, "auto-1", Duration.ZERO)).isEmpty();
                assertThatThrownBy(() -> jobs.awaitReturn(otherBusiness, jid, "auto-1", Duration.ZERO))
                        .hasMessage("job " + jid + " does not exist"); // as missing to a token of other businesses

                jobs.onReturn("auto-1", JobReturn.fromWire(Map.of("jid", jid, "fun", "test.ping", "return", "pong")));
                assertThat(jobs.awaitReturn(admin, jid, "auto-1", Duration.ofSeconds(1)))
                        .hasValueSatisfying(ret -> assertThat(ret.ret()).isEqualTo("pong"));
                assertThat(jobs.awaitReturn(admin, jid, "auto-2", Duration.ofMillis(50))).as("auto-2 has not answered").isEmpty();
                jobs.onReturn("auto-2", JobReturn.fromWire(Map.of("jid", jid, "fun", "test.ping", "return", "pong 2")));
                // the job is done and no longer waited on here: read from the database, and still refused across businesses
                assertThat(jobs.awaitReturn(admin, jid, "auto-2", Duration.ofSeconds(1)))
                        .hasValueSatisfying(ret -> assertThat(ret.ret()).isEqualTo("pong 2"));
                assertThatThrownBy(() -> jobs.awaitReturn(otherBusiness, jid, "auto-2", Duration.ZERO))
                        .hasMessage("job " + jid + " does not exist"); // as missing to a token of other businesses
                assertThatThrownBy(() -> jobs.awaitReturn(admin, "20991231000000000000", "auto-1", Duration.ZERO))
                        .hasMessageContaining("20991231000000000000");
            } finally {
                jobs.close();
            }
        });
    }
}
