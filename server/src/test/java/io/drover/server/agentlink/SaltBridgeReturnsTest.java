package io.drover.server.agentlink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.drover.model.jobs.AgentJobState;
import io.drover.server.agents.AgentRegistry;
import io.drover.server.agents.EnrollmentTokenStore;
import io.drover.server.events.EventBus;
import io.drover.server.events.EventStore;
import io.drover.server.inventory.InventoryStore;
import io.drover.server.inventory.InventoryService;
import io.drover.server.keys.KeyStore;
import io.drover.server.testing.TestDatabases;
import io.drover.transport.envelope.JobReturn;
import io.drover.transport.master.RequestDeferred;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The agent link hands the job lifecycle typed returns only; what is not a return is acknowledged False and dropped. */
class SaltBridgeReturnsTest {
    /** What the job lifecycle was handed, and what it answers. */
    static final class Jobs implements JobReports {
        final List<JobReturn> returns = new CopyOnWriteArrayList<>();
        volatile RuntimeException failure;

        @Override
        public boolean onReturn(String agentId, JobReturn ret) {
            if (failure != null) {
                throw failure;
            }
            returns.add(ret);
            return true;
        }

        @Override
        public void onAgentState(String agentId, String jid, AgentJobState state) {
        }
    }

    @Test
    void aReturnIsHandedOnTypedAndOneThatIsNotIsRefusedAndCounted() {
        TestDatabases.on("sqlite", db -> {
            Clock clock = Clock.systemUTC();
            EventStore events = new EventStore(db.jdbi(), new EventBus(), clock);
            AgentRegistry agents = new AgentRegistry(db.jdbi(), events, new InventoryService(db.jdbi(), new InventoryStore(), events),
                    null, clock);
            KeyStore keys = new KeyStore(db.jdbi(), events, List.of(), new EnrollmentTokenStore(db.jdbi(), clock), agents, () -> { }, clock);
            Jobs jobs = new Jobs();
            SaltBridge bridge = new SaltBridge(keys, jobs, agents, null, db.jdbi(), events, (agent, run, message) -> false,
                    false, false);

            assertThat(bridge.onReturn("web-1", Map.of("cmd", "_return", "id", "web-1", "jid", "20261127120000123456",
                    "fun", "test.ping", "fun_args", List.of(), "return", true, "retcode", 0L, "success", true))).isEqualTo(true);
            assertThat(jobs.returns).containsExactly(new JobReturn("20261127120000123456", "test.ping", List.of(), true, 0, true, false));

            assertThat(bridge.onReturn("web-1", Map.of("jid", "20261127120000123457", "fun", "test.ping", "retcode", "0")))
                    .isEqualTo(false);
            assertThat(bridge.onReturn("web-1", Map.of("fun", "test.ping", "return", true))).isEqualTo(false);
            assertThat(jobs.returns).hasSize(1);
            assertThat(bridge.refusedReturns()).isEqualTo(2);

            jobs.failure = new RequestDeferred("the database's disk is full", null);
            assertThatThrownBy(() -> bridge.onReturn("web-1", Map.of("jid", "20261127120000123458", "fun", "test.ping")))
                    .as("a return that could not be stored is left unanswered, for the agent to send again")
                    .isInstanceOf(RequestDeferred.class);
        });
    }

    /** A host cannot fill the event log (and the disk) with its own events, nor every server's memory with its grains. */
    @Test
    void anEventOrGrainsOverTheirLimitAreRefusedAndTheRestKept() {
        TestDatabases.on("sqlite", db -> {
            Clock clock = Clock.systemUTC();
            List<io.drover.model.events.Event> stored = new CopyOnWriteArrayList<>();
            EventBus bus = new EventBus();
            bus.subscribe(e -> e.tag().startsWith("drover/agent/web-1/"), stored::add);
            EventStore events = new EventStore(db.jdbi(), bus, clock);
            AgentRegistry agents = new AgentRegistry(db.jdbi(), events, new InventoryService(db.jdbi(), new InventoryStore(), events),
                    null, clock);
            KeyStore keys = new KeyStore(db.jdbi(), events, List.of(), new EnrollmentTokenStore(db.jdbi(), clock), agents, () -> { }, clock);
            SaltBridge bridge = new SaltBridge(keys, new Jobs(), agents, null, db.jdbi(), events, (agent, run, message) -> false,
                    false, false);

            String tag = "drover/agent/web-1/plugin/exporter/exited";
            assertThat(bridge.onEvent("web-1", Map.of("tag", tag, "data", Map.of("output", "x".repeat(8 << 20))))).isEqualTo(false);
            assertThat(bridge.onEvent("web-1", Map.of("tag", tag, "data", Map.of("code", 1L)))).isEqualTo(true);
            assertThat(stored).singleElement().satisfies(e -> assertThat(e.data().toString()).contains("code"));
            assertThat(bridge.refusedEvents()).isEqualTo(1);

            String heartbeat = "drover/agent/web-1/heartbeat";
            bridge.onEvent("web-1", Map.of("tag", heartbeat, "data", Map.of("version", "1", "grains", Map.of("os", "Linux"))));
            bridge.onEvent("web-1", Map.of("tag", heartbeat, "data", Map.of("version", "1",
                    "grains", Map.of("os", "Linux", "junk", "y".repeat(1 << 20)))));
            assertThat(agents.grains("web-1")).isEqualTo(Map.of("os", "Linux"));
            bridge.onEvent("web-1", Map.of("tag", heartbeat, "data", Map.of("version", "1", "grains", Map.of("os", "BSD"))));
            assertThat(agents.grains("web-1")).isEqualTo(Map.of("os", "BSD"));
        });
    }
}
