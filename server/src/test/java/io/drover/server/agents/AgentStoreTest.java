package io.drover.server.agents;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.model.keys.KeyState;
import io.drover.server.testing.OnBothDatabases;
import io.drover.server.testing.TestDatabases;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

/** The agent repository on SQLite and on the real PostgreSQL. */
class AgentStoreTest {
    final AgentStore repository = new AgentStore();

    /**
     * The presence check, a heartbeat and another server may write a new agent's row at the same moment (in CI a
     * heartbeat failed so, and the agent signed in again): a row that is there already is kept, not an error.
     */
    @OnBothDatabases
    void writingANewAgentsRowTwiceKeepsOneRowAndItsBusiness(String kind) {
        TestDatabases.on(kind, db -> db.jdbi().useTransaction(h -> {
            h.execute("INSERT INTO business (bk_biz_id, bk_biz_name, attributes) VALUES (9, 'ops', '{}')");
            repository.insertNew(h, List.of("race-1", "race-1")); // as two writers that both found no row
            repository.insertNew(h, List.of("race-1"));
            repository.insertIfAbsent(h, "race-1", null);
            repository.placeInBusiness(h, "race-1", 9);
            assertThat(repository.all(h)).extracting(AgentStore.Row::id).containsExactly("race-1");
            assertThat(repository.all(h).getFirst().bizId()).isEqualTo(9L);
        }));
    }

    @OnBothDatabases
    void agentsAreInsertedPlacedLinkedAndForgotten(String kind) {
        TestDatabases.on(kind, db -> db.jdbi().useTransaction(h -> {
            h.execute("INSERT INTO business (bk_biz_id, bk_biz_name, attributes) VALUES (2, 'shop', '{}')");
            h.execute("INSERT INTO host (bk_host_id, bk_biz_id, bk_host_innerip, bk_cloud_id, attributes, bk_module_ids) "
                    + "VALUES (7, 2, '10.0.0.7', 0, '{}', '')");
            h.execute("INSERT INTO minion_key (id, state, public_key, fingerprint, created_at, updated_at) VALUES "
                    + "('web-1', 'accepted', 'k', 'f', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP), "
                    + "('new-1', 'pending', 'k', 'f', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)");
            repository.insertNew(h, List.of("web-1", "web-2"));
            repository.insertNew(h, List.of("web-1", "web-3"));
            repository.insertIfAbsent(h, "web-3", 2L);
            repository.placeInBusiness(h, "web-1", 2);
            repository.placeInBusiness(h, "enrolled-1", 2);
            repository.updateFacts(h, "web-1", "0.1.0", "{\"os\":\"Debian\"}", "abc", 30);
            repository.link(h, "web-1", 7, 2);
            OffsetDateTime seen = OffsetDateTime.of(2026, 11, 25, 3, 0, 0, 0, ZoneOffset.UTC);
            repository.updatePresence(h, List.of(new AgentStore.Presence("web-1", true, seen),
                    new AgentStore.Presence("web-2", false, null)));
            repository.updateLastSeen(h, Map.of("web-2", seen.plusMinutes(1)));
            repository.updatePresence(h, List.of());
            repository.updateLastSeen(h, Map.of());

            Map<String, AgentStore.Row> rows = new java.util.TreeMap<>();
            repository.all(h).forEach(r -> rows.put(r.id(), r));
            assertThat(rows).containsOnlyKeys("web-1", "web-2", "web-3", "enrolled-1");
            AgentStore.Row web1 = rows.get("web-1");
            assertThat(web1.bizId()).isEqualTo(2L);
            assertThat(web1.hostId()).isEqualTo(7L);
            assertThat(web1.version()).isEqualTo("0.1.0");
            assertThat(web1.grains()).containsEntry("os", "Debian");
            assertThat(web1.heartbeatSeconds()).isEqualTo(30);
            assertThat(web1.online()).isTrue();
            assertThat(web1.lastSeen().toInstant()).isEqualTo(seen.toInstant());
            assertThat(rows.get("web-2").online()).isFalse();
            assertThat(rows.get("web-2").lastSeen().toInstant()).isEqualTo(seen.plusMinutes(1).toInstant());
            assertThat(rows.get("web-3").bizId()).as("inserted first without business, then left alone").isNull();
            assertThat(rows.get("enrolled-1").bizId()).isEqualTo(2L);

            assertThat(repository.keyStates(h)).containsExactly(Map.entry("new-1", new AgentStore.KeyRow(KeyState.PENDING, null)),
                    Map.entry("web-1", new AgentStore.KeyRow(KeyState.ACCEPTED, null)));
            repository.delete(h, "web-2");
            assertThat(repository.all(h)).extracting(AgentStore.Row::id).doesNotContain("web-2");
        }));
    }
}
