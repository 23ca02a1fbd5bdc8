package io.drover.server.agents;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.model.agents.AgentInfo;
import io.drover.model.agents.LinkConflictReason;
import io.drover.model.auth.Role;
import io.drover.model.events.Event;
import io.drover.server.auth.Principal;
import io.drover.server.events.EventBus;
import io.drover.server.events.EventStore;
import io.drover.server.inventory.InventoryStore;
import io.drover.server.inventory.InventoryService;
import io.drover.server.store.Database;
import io.drover.server.testing.ManualClock;
import io.drover.server.testing.OnBothDatabases;
import io.drover.server.testing.TestDatabases;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The link conflicts of the registry on SQLite and on PostgreSQL: recorded once per conflict, kept across a restart,
 * over when the agent may be linked, and listed with the host only to callers who may see its business.
 */
class AgentLinkConflictTest {
    final ManualClock clock = new ManualClock(1_800_000_000_000L);
    final List<Event> events = new CopyOnWriteArrayList<>();
    static final Principal ADMIN = new Principal(1, "root", Role.ADMIN, Set.of());
    static final Principal VIEWER_8 = new Principal(2, "eight", Role.VIEWER, Set.of(8L));

    AgentRegistry registry(Database db) {
        EventBus bus = new EventBus();
        bus.subscribe(e -> true, events::add);
        EventStore store = new EventStore(db.jdbi(), bus, clock);
        return new AgentRegistry(db.jdbi(), store, new InventoryService(db.jdbi(), new InventoryStore(), store), null, clock);
    }

    /** Business 7 with host 7001 (10.9.7.1, no agent), business 8 with host 8001 (10.9.8.1) and its agent web-8. */
    static void twoBusinesses(Database db) {
        db.jdbi().useTransaction(h -> {
            h.execute("INSERT INTO business (bk_biz_id, bk_biz_name, attributes) VALUES (7, 'seven', '{}'), (8, 'eight', '{}')");
            h.execute("INSERT INTO host (bk_host_id, bk_biz_id, bk_host_innerip, bk_cloud_id, attributes, bk_module_ids) "
                    + "VALUES (7001, 7, '10.9.7.1', 0, '{}', ''), (8001, 8, '10.9.8.1', 0, '{}', '')");
            for (String id : List.of("web-8", "intruder")) {
                h.execute("INSERT INTO minion_key (id, state, public_key, fingerprint, created_at, updated_at) VALUES ('"
                        + id + "', 'accepted', 'k', 'f', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)");
            }
        });
    }

    static Map<String, Object> claiming(String ip) {
        return Map.of("version", "test", "interval", 30, "grains", Map.of("drover_innerip", ip, "drover_cloud_id", 0));
    }

    List<Event> conflicts() {
        return events.stream().filter(e -> e.tag().equals("drover/agent/intruder/link-conflict")).toList();
    }

    static AgentInfo row(AgentRegistry agents, Principal p, String id) {
        return agents.list(p).stream().filter(a -> a.id().equals(id)).findFirst().orElse(null);
    }

    @OnBothDatabases
    void aConflictIsRecordedOnceKeptAcrossARestartAndOverWhenTheAgentMayBeLinked(String kind) {
        TestDatabases.on(kind, db -> {
            twoBusinesses(db);
            AgentRegistry agents = registry(db);
            db.jdbi().useTransaction(h -> {
                agents.enrolled(h, "web-8", 8);
                agents.enrolled(h, "intruder", 8);
            });
            agents.heartbeat("web-8", claiming("10.9.8.1"));
            assertThat(agents.hostOf("web-8")).isEqualTo(8001L);

            for (int i = 0; i < 3; i++) {
                agents.heartbeat("intruder", claiming("10.9.7.1"));
                clock.advance(Duration.ofSeconds(30));
            }
            assertThat(agents.hostOf("intruder")).isNull();
            assertThat(agents.agentOfHost(7001)).isNull();
            assertThat(conflicts()).singleElement().satisfies(e -> assertThat(e.data())
                    .containsEntry("reason", "other_business").doesNotContainKey("conflict_host_id"));
            assertThat(row(agents, ADMIN, "intruder").linkConflict().bkHostId()).isEqualTo(7001L);
            AgentInfo seenBy8 = row(agents, VIEWER_8, "intruder");
            assertThat(seenBy8.linkConflict().reason()).isEqualTo(LinkConflictReason.OTHER_BUSINESS);
            assertThat(seenBy8.linkConflict().bkHostId()).as("business 7's host, hidden from business 8").isNull();

            // A restart: the conflict is still there, and not recorded again.
            AgentRegistry restarted = registry(db);
            restarted.heartbeat("intruder", claiming("10.9.7.1"));
            assertThat(conflicts()).hasSize(1);
            assertThat(row(restarted, ADMIN, "intruder").linkConflict().reason()).isEqualTo(LinkConflictReason.OTHER_BUSINESS);

            // Another conflict is another event: the address of a host that has an agent.
            restarted.heartbeat("intruder", claiming("10.9.8.1"));
            restarted.heartbeat("intruder", claiming("10.9.8.1"));
            assertThat(conflicts()).hasSize(2);
            assertThat(conflicts().get(1).data()).containsEntry("reason", "host_has_agent");
            assertThat(((Number) conflicts().get(1).data().get("conflict_host_id")).longValue()).isEqualTo(8001);
            assertThat(row(restarted, VIEWER_8, "intruder").linkConflict().bkHostId()).as("a host of its own business").isEqualTo(8001L);
            assertThat(restarted.agentOfHost(8001)).isEqualTo("web-8");

            // The other agent's key is deleted: the host is free and of the agent's business, so it is linked.
            db.jdbi().useTransaction(h -> restarted.forget(h, "web-8"));
            restarted.heartbeat("intruder", claiming("10.9.8.1"));
            assertThat(restarted.hostOf("intruder")).isEqualTo(8001L);
            assertThat(row(restarted, ADMIN, "intruder").linkConflict()).isNull();
            assertThat(registry(db).list(ADMIN)).filteredOn(a -> a.id().equals("intruder")).singleElement()
                    .satisfies(a -> assertThat(a.linkConflict()).isNull());
        });
    }

    @OnBothDatabases
    void aScopedTokenListsTheUnlinkedAgentsItsBusinessAdmittedAndNoOthers(String kind) {
        TestDatabases.on(kind, db -> {
            twoBusinesses(db);
            AgentRegistry agents = registry(db);
            db.jdbi().useTransaction(h -> agents.enrolled(h, "intruder", 8));
            agents.heartbeat("intruder", claiming("10.9.7.1"));
            agents.heartbeat("web-8", Map.of("grains", Map.of())); // accepted without business: none
            assertThat(agents.list(VIEWER_8)).extracting(AgentInfo::id).containsExactly("intruder");
            assertThat(agents.list(new Principal(3, "seven", Role.VIEWER, Set.of(7L)))).isEmpty();
            assertThat(agents.list(ADMIN)).extracting(AgentInfo::id).containsExactly("intruder", "web-8");
        });
    }

    /**
     * A deleted host's id given to a new host of another business must not bring the agent of the deleted host with it:
     * the agent would be that business's to run commands on, and its jobs' history to read.
     */
    @OnBothDatabases
    void anAgentWhoseHostIsDeletedDoesNotFollowItsIdIntoAnotherBusiness(String kind) {
        TestDatabases.on(kind, db -> {
            twoBusinesses(db);
            db.jdbi().useTransaction(h -> {
                h.execute("INSERT INTO topo_set (bk_set_id, bk_biz_id, bk_set_name) VALUES (70, 7, 'idle pool')");
                h.execute("INSERT INTO topo_module (bk_module_id, bk_set_id, bk_biz_id, bk_module_name, is_idle) "
                        + "VALUES (700, 70, 7, 'idle', TRUE)");
            });
            EventBus bus = new EventBus();
            EventStore store = new EventStore(db.jdbi(), bus, clock);
            InventoryService inventory = new InventoryService(db.jdbi(), new InventoryStore(), store);
            AgentsModule module = new AgentsModule(new AgentsModule.Needs(db.jdbi(), store, inventory, null, () -> true, clock));
            module.followInventory(bus);
            AgentRegistry agents = module.registry();
            db.jdbi().useTransaction(h -> agents.enrolled(h, "web-8", 8));
            agents.heartbeat("web-8", claiming("10.9.8.1"));
            assertThat(agents.hostOf("web-8")).isEqualTo(8001L);

            inventory.deleteHost(ADMIN, 8001);
            Principal operator7 = new Principal(3, "seven", Role.OPERATOR, Set.of(7L));
            inventory.createHost(operator7, new io.drover.model.inventory.Host(8001L, 7L, "10.9.7.99", 0L, "taken",
                    null, null, List.of(), Map.of()));

            assertThat(agents.hostOf("web-8")).isNull();
            assertThat(agents.businesses(List.of("web-8"))).isEmpty();
            assertThat(agents.agentOfHost(8001)).isNull();
            assertThat(agents.agentsByHost()).doesNotContainKey(8001L);
            assertThat(row(agents, operator7, "web-8")).isNull();
            // its next heartbeat claims an address no host of its business has: it stays unlinked
            agents.heartbeat("web-8", claiming("10.9.8.1"));
            assertThat(agents.businesses(List.of("web-8"))).isEmpty();
        });
    }
}
