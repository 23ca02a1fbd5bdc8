package io.drover.server.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.model.jobs.AgentJob;
import io.drover.model.jobs.AgentJobState;
import io.drover.model.jobs.JobResult;
import io.drover.server.testing.OnBothDatabases;
import io.drover.server.testing.TestDatabases;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The job repository on SQLite and on the real PostgreSQL. */
class JobStoreTest {
    final JobStore repository = new JobStore(Clock.systemUTC());

    @OnBothDatabases
    void aJobItsReturnsAndWhoIsStillMissing(String kind) {
        TestDatabases.on(kind, db -> db.jdbi().useTransaction(h -> {
            repository.insertJob(h, "20261125000000000001", "cmd.run", List.of("uptime", Map.of("__kwarg__", true, "cwd", "/")),
                    null, "web-*", "glob", List.of("web-1", "web-2", "web-3"), "alice", null);
            repository.insertJob(h, "20261125000000000002", "test.ping", List.of(), "v1:sealed", "db-1", "list", List.of("db-1"), "bob", null);
            assertThat(repository.sealedArg(h, "20261125000000000001")).isEmpty();
            assertThat(repository.sealedArg(h, "20261125000000000002")).contains("v1:sealed");
            assertThat(repository.awaiting(h, List.of("20261125000000000001", "20261125000000000002")))
                    .containsEntry("20261125000000000001", Set.of("web-1", "web-2", "web-3"))
                    .containsEntry("20261125000000000002", Set.of("db-1"));

            repository.insertReturns(h, List.of(new JobStore.ReturnRow("20261125000000000001", "web-2", "\"up 3 days\"", 0, true, false),
                    new JobStore.ReturnRow("20261125000000000001", "web-3", "\"sh: uptime: not found\"", 127, false, false)));
            repository.insertReturns(h, List.of());
            assertThat(repository.awaiting(h, List.of("20261125000000000001"))).containsEntry("20261125000000000001", Set.of("web-1"));

            JobResult job = repository.find(h, "20261125000000000001").orElseThrow();
            assertThat(job.fun()).isEqualTo("cmd.run");
            assertThat(job.arg()).isEqualTo(List.of("uptime", Map.of("__kwarg__", true, "cwd", "/")));
            assertThat(job.minions()).containsExactly("web-1", "web-2", "web-3");
            assertThat(job.missing()).containsExactly("web-1");
            assertThat(job.returns().get("web-2").ret()).isEqualTo("up 3 days");
            assertThat(job.returns().get("web-3").retcode()).isEqualTo(127);
            assertThat(job.returns().get("web-3").success()).isFalse();
            assertThat(repository.find(h, "20261125000000000009")).isEmpty();
            assertThat(job.states()).containsExactly(Map.entry("web-1", AgentJobState.PUBLISHED),
                    Map.entry("web-2", AgentJobState.RETURNED), Map.entry("web-3", AgentJobState.RETURNED));
            assertThat(job.counts()).containsOnly(Map.entry(AgentJobState.PUBLISHED, 1), Map.entry(AgentJobState.RETURNED, 2));
        }));
    }

    /**
     * A return is kept on the agent's row of the job: the first one stays (a second one, say from a server that had not
     * yet seen the first in a cluster, neither replaces it nor fails the batch it came in), and an agent the job did
     * not target gets no row.
     */
    @OnBothDatabases
    void anAgentsFirstReturnIsKeptAndNoRowIsMadeForAnAgentTheJobDidNotTarget(String kind) {
        TestDatabases.on(kind, db -> db.jdbi().useTransaction(h -> {
            String jid = "20261125000000000021";
            repository.insertJob(h, jid, "test.ping", List.of(), null, "a,b", "list", List.of("a", "b"), "alice", null);
            repository.insertReturns(h, List.of(new JobStore.ReturnRow(jid, "a", "true", 0, true, false)));
            repository.insertReturns(h, List.of(new JobStore.ReturnRow(jid, "a", "\"second\"", 1, false, false),
                    new JobStore.ReturnRow(jid, "b", "true", 0, true, false),
                    new JobStore.ReturnRow(jid, "stranger", "true", 0, true, false)));

            JobResult job = repository.find(h, jid).orElseThrow();
            assertThat(job.returns()).containsOnlyKeys("a", "b");
            assertThat(job.returns().get("a").ret()).isEqualTo(true);
            assertThat(job.returns().get("a").retcode()).isZero();
            assertThat(repository.findReturn(h, jid, "a")).get().extracting(JobResult.Return::success).isEqualTo(true);
            assertThat(repository.findReturn(h, jid, "stranger")).isEmpty();
            assertThat(repository.page(h, jid, null, 10, JobStore.ReturnForm.VALUES)).extracting(AgentJob::id).containsExactly("a", "b");
            assertThat(job.states()).containsOnlyKeys("a", "b");
        }));
    }

    /**
     * Each agent's state moves only forward, from facts: its reports, its return, a cancel, a timeout, its loss. A
     * killed return keeps CANCELLED; a return after a cancel that came too late is RETURNED.
     */
    @OnBothDatabases
    void statesAreRecordedAsTheyHappen(String kind) {
        TestDatabases.on(kind, db -> db.jdbi().useTransaction(h -> {
            String jid = "20261125000000000003";
            java.time.OffsetDateTime past = java.time.OffsetDateTime.now().minusSeconds(5);
            repository.insertJob(h, jid, "cmd.run", List.of("sleep 60"), null, "a,b,c,d,e,f", "list",
                    List.of("a", "b", "c", "d", "e", "f"), "alice", null);
            assertThat(repository.advance(h, jid, "a", AgentJobState.RECEIVED, List.of(AgentJobState.PUBLISHED))).isTrue();
            assertThat(repository.advance(h, jid, "a", AgentJobState.RUNNING, List.of(AgentJobState.PUBLISHED, AgentJobState.RECEIVED))).isTrue();
            assertThat(repository.advance(h, jid, "a", AgentJobState.RECEIVED, List.of(AgentJobState.PUBLISHED)))
                    .as("a late report does not move it back").isFalse();
            assertThat(repository.advance(h, jid, "zz", AgentJobState.RUNNING, List.of(AgentJobState.PUBLISHED)))
                    .as("an agent the job did not name").isFalse();
            repository.advance(h, jid, "b", AgentJobState.RUNNING, List.of(AgentJobState.PUBLISHED, AgentJobState.RECEIVED));
            repository.insertReturns(h, List.of(new JobStore.ReturnRow(jid, "c", "\"done\"", 0, true, false)));

            assertThat(repository.cancel(h, jid, List.of("a", "b", "c"))).as("c had returned").containsExactly("a", "b");
            repository.insertReturns(h, List.of(new JobStore.ReturnRow(jid, "a", "\"\"", 143, false, true),
                    new JobStore.ReturnRow(jid, "b", "\"finished anyway\"", 0, true, false)));
            assertThat(repository.recordLost(h, "d", past)).isEqualTo(1);
            assertThat(repository.recordTimeouts(h, past, java.time.OffsetDateTime.now())).as("the job has no timeout").isZero();
            assertThat(repository.find(h, jid).orElseThrow().states()).containsExactly(Map.entry("a", AgentJobState.CANCELLED),
                    Map.entry("b", AgentJobState.RETURNED), Map.entry("c", AgentJobState.RETURNED),
                    Map.entry("d", AgentJobState.AGENT_LOST), Map.entry("e", AgentJobState.PUBLISHED),
                    Map.entry("f", AgentJobState.PUBLISHED));
            assertThat(repository.cancel(h, jid, null)).as("a lost agent may still run it").containsExactly("d", "e", "f");

            String timed = "20261125000000000004";
            repository.insertJob(h, timed, "test.ping", List.of(), null, "a,b", "list", List.of("a", "b"), "alice",
                    java.time.OffsetDateTime.now().minusSeconds(1));
            repository.insertReturns(h, List.of(new JobStore.ReturnRow(timed, "a", "true", 0, true, false)));
            assertThat(repository.recordTimeouts(h, past, java.time.OffsetDateTime.now())).isEqualTo(1);
            assertThat(repository.recordTimeouts(h, java.time.OffsetDateTime.now(), java.time.OffsetDateTime.now().plusSeconds(5)))
                    .as("swept once").isZero();
            assertThat(repository.find(h, timed).orElseThrow().states()).containsExactly(Map.entry("a", AgentJobState.RETURNED),
                    Map.entry("b", AgentJobState.TIMED_OUT));
        }));
    }

    /**
     * The paging contract of GET /jobs/{jid}/returns: every agent once, in id order, pages of at most the limit, the
     * next page after the last id of this one, no next on the last page; agents with and without returns alike.
     */
    @OnBothDatabases
    void aJobsAgentsArePagedInIdOrderEachOnce(String kind) {
        TestDatabases.on(kind, db -> db.jdbi().useTransaction(h -> {
            String jid = "20261125000000000005";
            List<String> ids = java.util.stream.IntStream.range(0, 1_234).mapToObj(i -> "host-" + Integer.toString(i, 36)).toList();
            repository.insertJob(h, jid, "test.ping", List.of(), null, "host-*", "glob", ids, "alice", null);
            repository.insertReturns(h, ids.stream().filter(id -> id.hashCode() % 3 != 0)
                    .map(id -> new JobStore.ReturnRow(jid, id, "true", 0, true, false)).toList());
            List<String> seen = new java.util.ArrayList<>();
            String after = null;
            int pages = 0;
            while (true) {
                List<AgentJob> page = repository.page(h, jid, after, 100, JobStore.ReturnForm.VALUES);
                assertThat(page.size()).isLessThanOrEqualTo(100);
                if (page.isEmpty()) {
                    break;
                }
                pages++;
                for (AgentJob a : page) {
                    seen.add(a.id());
                    assertThat(a.state()).isEqualTo(a.id().hashCode() % 3 != 0 ? AgentJobState.RETURNED : AgentJobState.PUBLISHED);
                    assertThat(a.ret() == null).isEqualTo(a.id().hashCode() % 3 == 0);
                }
                after = page.getLast().id();
            }
            assertThat(pages).isEqualTo(13);
            assertThat(seen).containsExactlyInAnyOrderElementsOf(ids).doesNotHaveDuplicates();
            assertThat(repository.page(h, "20261125000000000099", null, 10, JobStore.ReturnForm.VALUES)).isEmpty();
        }));
    }
}
