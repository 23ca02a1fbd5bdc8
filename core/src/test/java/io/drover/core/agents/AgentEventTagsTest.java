package io.drover.core.agents;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.core.agents.AgentEventTags.Kind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AgentEventTagsTest {

    @ParameterizedTest(name = "{0} fires {1}: {2}")
    @CsvSource({
            "web-1, drover/agent/web-1/heartbeat, HEARTBEAT",
            "web-1, drover/agent/web-1/plugin/node_exporter/exited, OWN",
            "web-1, drover/agent/web-1/custom, OWN",
            "web-1, salt/minion/web-1/start, OWN",
            "web-1, drover/plan/run-42/log, PLAN_LOG",
            "web-1, drover/agent/web-1/job/20261127000000000000/received, JOB_STATE",
            "web-1, drover/agent/web-1/job/20261127000000000000/running, JOB_STATE",
            // not a job state: kept as the agent's own event, never recorded on a job
            "web-1, drover/agent/web-1/job/20261127000000000000/returned, OWN",
            "web-1, drover/agent/web-1/job/2026112700000000000x/running, OWN",
            "web-1, drover/agent/web-2/job/20261127000000000000/running, FOREIGN",
            // the server writes these about an agent; the agent itself may not
            "web-1, drover/agent/web-1/online, RESERVED",
            "web-1, drover/agent/web-1/lost, RESERVED",
            "web-1, drover/agent/web-1/linked, RESERVED",
            "web-1, drover/agent/web-1/link-conflict, RESERVED",
            "web-1, drover/agent/web-1/unlinked, RESERVED",
            "web-1, drover/agent/web-1/address-changed, RESERVED",
            "web-1, drover/agent/web-1/online/again, RESERVED",
            "web-1, drover/agent/web-1/, RESERVED",
            "web-1, drover/agent/web-1/x/online, RESERVED",
            "web-1, drover/agent/web-1/plugin/a/lost, RESERVED",
            "web-1, drover/agent/web-1/x/y/linked, RESERVED",
            "web-1, drover/agent/web-1/x/unlinked, RESERVED",
            "web-1, drover/agent/web-1/x/online-ish, OWN",
            // another agent's namespace, or none
            "web-1, drover/agent/web-2/heartbeat, FOREIGN",
            "web-1, drover/agent/web-10/custom, FOREIGN",
            "web-1, drover/agent/web-1, FOREIGN",
            "web-1, drover/agent/web, FOREIGN",
            "web-1, salt/minion/web-2/start, FOREIGN",
            "web-1, salt/minion/web-1/start/x, FOREIGN",
            "web-1, salt/job/20261127000000000000/ret/web-2, FOREIGN",
            "web-1, salt/job/20261127000000000000/ret/web-1, FOREIGN",
            "web-1, salt/key, FOREIGN",
            "web-1, drover/inventory/host/created, FOREIGN",
            "web-1, minion_start, FOREIGN",
            "web-1, drover/plan//log, FOREIGN",
            "web-1, drover/plan/a/b/log, FOREIGN",
            "web-1, drover/plans/run/log, FOREIGN",
    })
    void anAgentSpeaksForItselfOnly(String agent, String tag, Kind expected) {
        assertThat(AgentEventTags.classify(agent, tag).kind()).isEqualTo(expected);
        assertThat(AgentEventTags.classify(agent, tag).allowed()).isEqualTo(expected != Kind.RESERVED && expected != Kind.FOREIGN);
    }

    @Test
    void aJobStateNamesItsJobAndState() {
        AgentEventTags.Verdict v = AgentEventTags.classify("web-1", AgentEventTags.jobState("web-1", "20261127000000000042", "running"));
        assertThat(v.kind()).isEqualTo(Kind.JOB_STATE);
        assertThat(v.jid()).isEqualTo("20261127000000000042");
        assertThat(v.jobState()).isEqualTo("running");
    }

    @Test
    void aPlanLogNamesItsRun() {
        assertThat(AgentEventTags.classify("web-1", "drover/plan/0f3a-run/log").planRun()).isEqualTo("0f3a-run");
        assertThat(AgentEventTags.classify("web-1", "drover/plan/" + "r".repeat(128) + "/log").kind()).isEqualTo(Kind.PLAN_LOG);
        assertThat(AgentEventTags.classify("web-1", "drover/plan/" + "r".repeat(129) + "/log").kind()).isEqualTo(Kind.FOREIGN);
    }

    @Test
    void oddInputIsForeign() {
        assertThat(AgentEventTags.classify("web-1", null).kind()).isEqualTo(Kind.FOREIGN);
        assertThat(AgentEventTags.classify("web-1", "").kind()).isEqualTo(Kind.FOREIGN);
        assertThat(AgentEventTags.classify(null, "drover/agent/null/x").kind()).isEqualTo(Kind.FOREIGN);
        assertThat(AgentEventTags.classify("", "drover/agent//x").kind()).isEqualTo(Kind.FOREIGN);
        assertThat(AgentEventTags.classify("a/b", "drover/agent/a/b/x").kind()).isEqualTo(Kind.FOREIGN);
        assertThat(AgentEventTags.classify("web-1", "drover/agent/web-1/x\0y").kind()).isEqualTo(Kind.FOREIGN);
        assertThat(AgentEventTags.classify("web-1", "drover/agent/web-1/x\ny").kind()).isEqualTo(Kind.FOREIGN);
        assertThat(AgentEventTags.classify("web-1", "drover/agent/web-1/x\u2028").kind()).isEqualTo(Kind.FOREIGN);
        assertThat(AgentEventTags.classify("web-1", "drover/agent/web-1/ünïcödé-✓").kind()).isEqualTo(Kind.OWN);
        String own = "drover/agent/web-1/";
        assertThat(AgentEventTags.classify("web-1", own + "x".repeat(255 - own.length())).kind()).isEqualTo(Kind.OWN);
        assertThat(AgentEventTags.classify("web-1", own + "x".repeat(256 - own.length())).kind()).isEqualTo(Kind.FOREIGN);
    }
}
