package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.server.config.Setting;
import io.drover.server.testing.TestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jobs stopped on real agents on loopback: {@code saltutil.kill_job} kills every process of the job (its process
 * group, and what left it) with SIGTERM then SIGKILL, and the job returns, marked killed.
 */
class JobKillTest {
    @TempDir
    Path roots;
    Fleet fleet;

    @BeforeEach
    void start() {
        fleet = new Fleet(TestServer.start(TestServer.newDataDir(), Map.of(Setting.AUTO_ACCEPT, "kill-*")), roots);
    }

    @AfterEach
    void stop() {
        fleet.close();
    }

    /** Processes whose command line holds {@code marker}. */
    static List<ProcessHandle> running(String marker) {
        return ProcessHandle.allProcesses().filter(p -> p.info().commandLine().map(c -> c.contains(marker)).orElse(false)).toList();
    }

    JsonNode job(Map<String, Object> body) {
        TestServer.Response r = fleet.server.post("/api/v1/jobs", fleet.server.adminToken(), body);
        assertThat(r.status()).as(r.text()).isLessThan(300);
        return r.body();
    }

    JsonNode returnOf(String jid, String agent) {
        return fleet.server.get("/api/v1/jobs/" + jid, fleet.server.adminToken()).body().path("returns").path(agent);
    }

    @Test
    void killJobKillsTheJobsWholeProcessGroupAndTheJobReturnsKilled() {
        fleet.agent("kill-1");
        await().atMost(Duration.ofSeconds(30)).until(() -> fleet.drover("run", "kill-1", "test.ping", "--timeout", "3").exit() == 0);

        // A shell with a child in the background, one in the foreground, and one that leaves the process group.
        String marker = "60.0" + ProcessHandle.current().pid();
        String jid = job(Map.of("tgt", "kill-1", "fun", "cmd.run", "arg", List.of("sleep " + marker + " & setsid sleep "
                + marker + " & sleep " + marker + "; echo finished"), "timeout", 120)).path("jid").asText();
        await().atMost(Duration.ofSeconds(15)).until(() -> running(marker).size() >= 3);

        String killJid = job(Map.of("tgt", "kill-1", "fun", "saltutil.kill_job", "arg", List.of(jid))).path("jid").asText();
        await().atMost(Duration.ofSeconds(15)).until(() -> !returnOf(killJid, "kill-1").isMissingNode());
        JsonNode killed = returnOf(killJid, "kill-1");
        assertThat(killed.path("ret").path("found").asBoolean()).as(killed.toString()).isTrue();
        assertThat(killed.path("ret").path("signalled").asInt()).as(killed.toString()).isGreaterThanOrEqualTo(3);
        assertThat(running(marker)).as("every process of the job is gone").isEmpty();

        await().atMost(Duration.ofSeconds(15)).until(() -> !returnOf(jid, "kill-1").isMissingNode());
        JsonNode ret = returnOf(jid, "kill-1");
        assertThat(ret.path("retcode").asInt()).as(ret.toString()).isNotZero();
        assertThat(ret.path("ret").asText()).doesNotContain("finished");

        // A job that is not running (any more) is not found, and nothing is signalled.
        String again = job(Map.of("tgt", "kill-1", "fun", "saltutil.kill_job", "arg", List.of(jid))).path("jid").asText();
        await().atMost(Duration.ofSeconds(15)).until(() -> !returnOf(again, "kill-1").isMissingNode());
        assertThat(returnOf(again, "kill-1").path("ret").path("found").asBoolean()).isFalse();
        assertThat(returnOf(again, "kill-1").path("ret").path("signalled").asInt()).isZero();
    }

    JsonNode states(String jid) {
        return fleet.server.get("/api/v1/jobs/" + jid, fleet.server.adminToken()).body().path("states");
    }

    /**
     * The case: a job with a 60 s sleep on 3 real agents, cancelled after 2 s with {@code drover job kill}:
     * every process gone, each agent recorded RUNNING while it ran and CANCELLED after, and shown so by the API and
     * by {@code drover job get|list}.
     */
    @Test
    void aSixtySecondSleepOnThreeAgentsCancelledAfterTwoSecondsLeavesNoProcessAndEveryAgentCancelled() {
        List<String> agents = List.of("kill-1", "kill-2", "kill-3");
        agents.forEach(fleet::agent);
        await().atMost(Duration.ofSeconds(30)).until(() -> fleet.drover("run", "kill-*", "test.ping", "--timeout", "3").exit() == 0);

        String marker = "60.1" + ProcessHandle.current().pid();
        String jid = job(Map.of("tgt", "kill-*", "fun", "cmd.run", "arg", List.of("sleep " + marker + " & sleep " + marker + "; echo finished"),
                "timeout", 120)).path("jid").asText();
        await().atMost(Duration.ofSeconds(15)).until(() -> running(marker).size() >= 6);
        List<ProcessHandle> processes = running(marker);
        await().atMost(Duration.ofSeconds(15)).until(() -> agents.stream().allMatch(a -> states(jid).path(a).asText().equals("RUNNING")));
        await().pollDelay(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> true);

        Fleet.Run kill = fleet.drover("job", "kill", jid);
        assertThat(kill.exit()).as(kill.err()).isZero();
        assertThat(kill.out()).contains("cancelled on 3 agent(s), 0 had finished");
        await().atMost(Duration.ofSeconds(15)).until(() -> processes.stream().noneMatch(ProcessHandle::isAlive) && running(marker).isEmpty());
        for (String agent : agents) {
            await().atMost(Duration.ofSeconds(15)).until(() -> !returnOf(jid, agent).isMissingNode());
            assertThat(returnOf(jid, agent).path("retcode").asInt()).isNotZero();
            assertThat(states(jid).path(agent).asText()).as("the killed return keeps the agent cancelled").isEqualTo("CANCELLED");
        }
        JsonNode job = fleet.server.get("/api/v1/jobs/" + jid, fleet.server.adminToken()).body();
        assertThat(job.path("counts").path("CANCELLED").asInt()).isEqualTo(3);

        Fleet.Run get = fleet.drover("job", "get", jid, "--page-size", "2");
        assertThat(get.exit()).as(get.err()).isZero();
        assertThat(get.out()).contains("kill-1").contains("kill-2").contains("kill-3")
                .contains("job " + jid + ": 3 agent(s): cancelled=3").doesNotContain("finished");
        assertThat(get.out().lines().filter(l -> l.contains(" cancelled ")).count()).isEqualTo(3);
        assertThat(fleet.drover("job", "list").out()).contains(jid).contains("cancelled=3");

        // A second kill finds nothing to stop; a target the job did not name is refused, naming it.
        assertThat(fleet.drover("job", "kill", jid).out()).contains("cancelled on 0 agent(s), 3 had finished");
        Fleet.Run foreign = fleet.drover("job", "kill", jid, "--target", "kill-1,ghost-9");
        assertThat(foreign.exit()).isNotZero();
        assertThat(foreign.err()).contains("ghost-9");
    }

    /** Bad paging and cancel input is refused with the parameter named, and changes nothing. */
    @Test
    void badPagingAndCancelInputIsRefusedNamingTheParameter() {
        fleet.agent("kill-1");
        await().atMost(Duration.ofSeconds(30)).until(() -> fleet.drover("run", "kill-1", "test.ping", "--timeout", "3").exit() == 0);
        String jid = job(Map.of("tgt", "kill-1", "fun", "test.ping")).path("jid").asText();
        String token = fleet.server.adminToken();
        await().atMost(Duration.ofSeconds(10)).until(() -> states(jid).path("kill-1").asText().equals("RETURNED"));
        for (String query : List.of("limit=0", "limit=5001", "limit=abc", "limit=-1", "after=%00x", "after=" + "a".repeat(256))) {
            TestServer.Response r = fleet.server.get("/api/v1/jobs/" + jid + "/returns?" + query, token);
            assertThat(r.status()).as(query + ": " + r.text()).isEqualTo(422);
            assertThat(r.text()).contains(query.substring(0, query.indexOf('=')));
        }
        assertThat(fleet.server.get("/api/v1/jobs/12345/returns", token).status()).isEqualTo(422);
        assertThat(fleet.server.get("/api/v1/jobs/20200101000000000000/returns", token).status()).isEqualTo(404);
        assertThat(fleet.server.post("/api/v1/jobs/20200101000000000000/cancel", token, Map.of()).status()).isEqualTo(404);
        TestServer.Response nul = fleet.server.post("/api/v1/jobs/" + jid + "/cancel", token, Map.of("targets", List.of("a\u0000b")));
        assertThat(nul.status()).as(nul.text()).isEqualTo(422);
        assertThat(nul.text()).contains("targets[0]");
        JsonNode page = fleet.server.get("/api/v1/jobs/" + jid + "/returns?limit=1", token).body();
        assertThat(page.path("agents").get(0).path("id").asText()).isEqualTo("kill-1");
        assertThat(page.path("agents").get(0).path("state").asText()).isEqualTo("RETURNED");
        assertThat(page.path("next").isNull() || page.path("next").isMissingNode()).isTrue();
        assertThat(states(jid).path("kill-1").asText()).isEqualTo("RETURNED");
    }

    /**
     * The server's own calls on agents (subscriptions, plans, diagnosis use them): cancelling one reaches the agent,
     * whose process is killed, and the waiting call ends with the killed return instead of waiting out its timeout.
     */
    @Test
    void cancellingAnAgentCallKillsItsProcessOnTheAgent() throws Exception {
        fleet.agent("kill-1");
        await().atMost(Duration.ofSeconds(30)).until(() -> fleet.drover("run", "kill-1", "test.ping", "--timeout", "3").exit() == 0);
        var calls = new io.drover.server.jobs.JobAgentCalls(fleet.server.server().jobs(), Duration.ofSeconds(120),
                io.drover.server.auth.Principal.system("test"));
        String marker = "60.2" + ProcessHandle.current().pid();
        var sent = new java.util.concurrent.CompletableFuture<String>();
        var outcome = java.util.concurrent.CompletableFuture.supplyAsync(() -> calls.call("kill-1",
                new io.drover.model.agentapi.AgentCall.RunCommand("sleep " + marker),
                io.drover.server.jobs.CallOptions.defaults().withSending(sent::complete)));
        String jid = sent.get(15, java.util.concurrent.TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(15)).until(() -> !running(marker).isEmpty());
        long started = System.nanoTime();
        assertThat(calls.cancel("kill-1", jid)).isTrue();
        var result = outcome.get(20, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(15));
        assertThat(result.ok()).isFalse();
        assertThat(result.answered()).isTrue();
        assertThat(running(marker)).isEmpty();
        assertThat(states(jid).path("kill-1").asText()).isEqualTo("CANCELLED");
        assertThat(calls.cancel("kill-1", jid)).as("nothing left to stop").isFalse();
    }

    /**
     * A token scoped to business 2 stops only its own agents' part of a job: a cancel or a page that concerns an agent
     * of business 7 is 403 with a count and no id; a job it cannot see is not listed; an unknown job is 404.
     */
    @Test
    void aScopedTokenCancelsOnlyItsBusinessesAgentsAndLearnsNoOtherId() {
        String admin = fleet.server.adminToken();
        assertThat(fleet.server.postRaw("/api/v1/inventory/import", admin, "application/yaml", TwoBusinesses.INVENTORY).status())
                .isEqualTo(200);
        for (long biz : new long[] {2, 7}) {
            JsonNode created = fleet.server.post("/api/v1/enrollment-tokens", admin, Map.of("name", "e" + biz, "bk_biz_id", biz)).body();
            fleet.agent(biz == 2 ? "in-1" : "out-1", biz == 2 ? "10.9.0.1" : "10.9.7.1", created.path("token").asText(),
                    Duration.ofSeconds(30));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            JsonNode agents = fleet.server.get("/api/v1/agents", admin).body();
            return agents.size() == 2 && agents.get(0).path("bk_host_id").asLong() > 0 && agents.get(1).path("bk_host_id").asLong() > 0;
        });
        await().atMost(Duration.ofSeconds(30)).until(() -> fleet.drover("run", "-L", "in-1,out-1", "test.ping", "--timeout", "3").exit() == 0);
        TestServer.Response made = fleet.server.post("/api/v1/tokens", admin, Map.of("name", "op2", "role", "operator", "bk_biz_ids", List.of(2)));
        assertThat(made.status()).as(made.text()).isEqualTo(201);
        String scoped = made.body().path("token").asText();

        String marker = "60.3" + ProcessHandle.current().pid();
        String both = job(Map.of("tgt", "in-1,out-1", "tgt_type", "list", "fun", "cmd.run", "arg", List.of("sleep " + marker), "timeout", 120))
                .path("jid").asText();
        String outside = job(Map.of("tgt", "out-1", "tgt_type", "list", "fun", "test.ping")).path("jid").asText();
        await().atMost(Duration.ofSeconds(15)).until(() -> running(marker).size() >= 2);

        // agents named in the body: refused; a job named by its id that ran outside the token's businesses: as missing
        for (TestServer.Response r : List.of(fleet.server.post("/api/v1/jobs/" + both + "/cancel", scoped, Map.of("targets", List.of("out-1"))),
                fleet.server.post("/api/v1/jobs/" + both + "/cancel", scoped, Map.of("targets", List.of("in-1", "out-1"))))) {
            assertThat(r.status()).as(r.text()).isEqualTo(403);
            assertThat(r.text()).doesNotContain("out-1").doesNotContain("10.9.7.1");
        }
        for (TestServer.Response r : List.of(fleet.server.post("/api/v1/jobs/" + both + "/cancel", scoped, Map.of()),
                fleet.server.get("/api/v1/jobs/" + both + "/returns", scoped),
                fleet.server.get("/api/v1/jobs/" + outside + "/returns", scoped),
                fleet.server.post("/api/v1/jobs/" + outside + "/cancel", scoped, Map.of()))) {
            assertThat(r.status()).as(r.text()).isEqualTo(404);
            assertThat(r.text()).doesNotContain("out-1").doesNotContain("10.9.7.1");
        }
        assertThat(states(both).path("in-1").asText()).as("a refused cancel changes nothing").isNotEqualTo("CANCELLED");
        assertThat(fleet.server.get("/api/v1/jobs/20200101000000000000/returns", scoped).status()).isEqualTo(404);
        String listed = fleet.server.get("/api/v1/jobs", scoped).text();
        assertThat(listed).doesNotContain(both).doesNotContain(outside).doesNotContain("out-1");

        int onBoth = running(marker).size(); // the same number of processes on each agent
        TestServer.Response mine = fleet.server.post("/api/v1/jobs/" + both + "/cancel", scoped, Map.of("targets", List.of("in-1")));
        assertThat(mine.status()).as(mine.text()).isEqualTo(200);
        assertThat(mine.body().path("cancelled").asInt()).isEqualTo(1);
        await().atMost(Duration.ofSeconds(15)).until(() -> running(marker).size() == onBoth / 2);
        await().atMost(Duration.ofSeconds(15)).until(() -> states(both).path("in-1").asText().equals("CANCELLED"));
        assertThat(states(both).path("out-1").asText()).isEqualTo("RUNNING");
        assertThat(fleet.drover("job", "kill", both).out()).contains("cancelled on 1 agent(s), 1 had finished");
        await().atMost(Duration.ofSeconds(15)).until(() -> running(marker).isEmpty());
    }

    /** An execution plan's script is killed the same way: its process group goes, and the job returns killed. */
    @Test
    void killingAPlanJobKillsItsScript() {
        fleet.agent("kill-1");
        await().atMost(Duration.ofSeconds(30)).until(() -> fleet.drover("run", "kill-1", "test.ping", "--timeout", "3").exit() == 0);
        String marker = "60.4" + ProcessHandle.current().pid();
        String plan = "{\"FormatVersion\": \"2.1.0\", \"ID\": \"kill-plan\", \"Body\": \"return s()\","
                + " \"Scripts\": {\"s\": {\"Type\": \"Bash\", \"EntryPoint\": \"f\"}},"
                + " \"Files\": {\"f\": {\"Name\": \"f.sh\", \"BodyType\": \"Text\", \"Body\": \"sleep " + marker + " & sleep " + marker + "\"}}}";
        String jid = job(Map.of("tgt", "kill-1", "fun", "plan.execute", "arg", List.of(plan), "timeout", 120)).path("jid").asText();
        await().atMost(Duration.ofSeconds(20)).until(() -> running(marker).size() >= 2);
        await().atMost(Duration.ofSeconds(10)).until(() -> states(jid).path("kill-1").asText().equals("RUNNING"));
        assertThat(fleet.drover("job", "kill", jid).out()).contains("cancelled on 1 agent(s)");
        await().atMost(Duration.ofSeconds(15)).until(() -> running(marker).isEmpty());
        await().atMost(Duration.ofSeconds(15)).until(() -> !returnOf(jid, "kill-1").isMissingNode());
        assertThat(returnOf(jid, "kill-1").path("retcode").asInt()).isNotZero();
        assertThat(states(jid).path("kill-1").asText()).isEqualTo("CANCELLED");
    }
}
