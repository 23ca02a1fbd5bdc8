package io.drover.server.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.drover.core.match.Glob;
import io.drover.model.agents.EnrollmentTokenRequest;
import io.drover.model.events.Event;
import io.drover.model.keys.KeyState;
import io.drover.model.keys.MinionKey;
import io.drover.server.agents.AgentRegistry;
import io.drover.server.agents.EnrollmentTokenStore;
import io.drover.server.auth.Principal;
import io.drover.server.errors.DomainException;
import io.drover.server.events.EventBus;
import io.drover.server.events.EventStore;
import io.drover.server.inventory.InventoryStore;
import io.drover.server.inventory.InventoryService;
import io.drover.server.store.Database;
import io.drover.server.testing.OnBothDatabases;
import io.drover.server.testing.TestDatabases;
import io.drover.transport.crypto.RsaKeys;
import io.drover.transport.master.KeyDecision;
import java.security.interfaces.RSAPublicKey;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** Minion keys with real collaborators (events, enrollment tokens, agents) on SQLite and on the real PostgreSQL. */
class KeyStoreTest {
    static final String KEY = RsaKeys.publicPem((RSAPublicKey) RsaKeys.generate().getPublic());
    static final String OTHER_KEY = RsaKeys.publicPem((RSAPublicKey) RsaKeys.generate().getPublic());

    final List<Event> events = new CopyOnWriteArrayList<>();
    final AtomicInteger revocations = new AtomicInteger();
    EnrollmentTokenStore enrollment;

    KeyStore keys(Database db) {
        return keys(db, KeyStore.DEFAULT_MAX_PENDING);
    }

    KeyStore keys(Database db, int maxPending) {
        EventBus bus = new EventBus();
        bus.subscribe(e -> true, events::add);
        EventStore store = new EventStore(db.jdbi(), bus, Clock.systemUTC());
        enrollment = new EnrollmentTokenStore(db.jdbi(), Clock.systemUTC());
        AgentRegistry agents = new AgentRegistry(db.jdbi(), store, new InventoryService(db.jdbi(), new InventoryStore(), store),
                null, Clock.systemUTC());
        return new KeyStore(db.jdbi(), store, List.of(Glob.compile("auto-*")), enrollment, agents, revocations::incrementAndGet,
                maxPending, Clock.systemUTC());
    }

    List<Map<String, Object>> eventsTagged(String tag) {
        return events.stream().filter(e -> e.tag().equals(tag)).map(Event::data).toList();
    }

    static Optional<Long> agentBusiness(Database db, String id) {
        return db.jdbi().withHandle(h -> h.createQuery("SELECT bk_biz_id FROM agent WHERE id = :id").bind("id", id)
                .mapTo(Long.class).findOne());
    }

    @OnBothDatabases
    void newKeysArePendingOrAutoAcceptedAndAnotherKeyForAKnownIdIsDenied(String kind) {
        TestDatabases.on(kind, db -> {
            KeyStore keys = keys(db);
            assertThat(keys.decide("web-1", "\n" + KEY + "\n\n", null)).isEqualTo(KeyDecision.PENDING);
            assertThat(keys.decide("auto-1", KEY, null)).isEqualTo(KeyDecision.ACCEPTED);
            assertThat(keys.decide("web-1", KEY, null)).as("same key, still pending").isEqualTo(KeyDecision.PENDING);
            assertThat(keys.decide("web-1", OTHER_KEY, null)).isEqualTo(KeyDecision.DENIED);
            assertThat(keys.decide("auto-1", OTHER_KEY, null)).isEqualTo(KeyDecision.DENIED);
            assertThat(keys.decide("auto-1", KEY, null)).isEqualTo(KeyDecision.ACCEPTED);

            List<MinionKey> all = keys.list(null);
            assertThat(all).extracting(MinionKey::id, MinionKey::state)
                    .containsExactly(tuple("auto-1", KeyState.ACCEPTED), tuple("web-1", KeyState.PENDING));
            assertThat(all).allSatisfy(k -> {
                assertThat(k.fingerprint()).isEqualTo(RsaKeys.fingerprint(KEY));
                assertThat(k.createdAt()).isNotNull().isEqualTo(k.updatedAt());
            });
            assertThat(keys.list("pending")).extracting(MinionKey::id).containsExactly("web-1");
            assertThat(keys.list("rejected")).isEmpty();
            assertThat(keys.acceptedIds()).containsExactly("auto-1");
            assertThat(keys.acceptedKey("auto-1")).isEqualTo(KEY.strip());
            assertThat(keys.acceptedKey("web-1")).isNull();
            assertThat(keys.acceptedKey("nobody")).isNull();

            // a sign-in's event is published on the event thread after its own commit, not on the caller's
            await().atMost(Duration.ofSeconds(5)).until(() -> eventsTagged("salt/auth").size() >= 6);
            assertThat(eventsTagged("salt/auth")).extracting(d -> d.get("result") + "/" + d.get("act")).containsExactly(
                    "pending/pend", "accepted/accept", "pending/pend", "denied/reject", "denied/reject", "accepted/accept");
            // a new key's events are published by the event thread soon after (publishPendingSoon)
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(eventsTagged("salt/key"))
                    .extracting(d -> d.get("id") + ":" + d.get("act"))
                    .containsExactly("web-1:pend", "auto-1:accept", "web-1:denied", "auto-1:denied"));
            assertThat(revocations).hasValue(0);
        });
    }

    @OnBothDatabases
    void pendingKeysAreCappedAndTheOldestIsDropped(String kind) {
        TestDatabases.on(kind, db -> {
            KeyStore keys = keys(db, 3);
            for (String id : List.of("flood-1", "flood-2", "flood-3", "auto-1", "flood-4", "flood-5")) {
                keys.decide(id, KEY, null);
            }
            assertThat(keys.list("pending")).extracting(k -> k.id()).containsExactlyInAnyOrder("flood-3", "flood-4", "flood-5");
            assertThat(keys.list("accepted")).extracting(k -> k.id()).containsExactly("auto-1");
            await().atMost(java.time.Duration.ofSeconds(5)).until(() -> eventsTagged("salt/key").stream()
                    .filter(e -> "dropped".equals(e.get("act"))).count() == 2);
            assertThat(eventsTagged("salt/key")).filteredOn(e -> "dropped".equals(e.get("act"))).extracting(e -> e.get("id"))
                    .containsExactly("flood-1", "flood-2");
            assertThat(keys.decide("flood-1", KEY, null)).as("a dropped key may come back, pending").isEqualTo(KeyDecision.PENDING);
        });
    }

    @OnBothDatabases
    void operatorsAcceptRejectAndDeleteKeys(String kind) {
        TestDatabases.on(kind, db -> {
            KeyStore keys = keys(db);
            keys.decide("web-1", KEY, null);
            MinionKey accepted = keys.setState("web-1", KeyStore.ACCEPTED);
            assertThat(accepted.state()).isEqualTo(KeyState.ACCEPTED);
            assertThat(accepted.updatedAt()).isAfterOrEqualTo(accepted.createdAt());
            assertThat(keys.acceptedKey("web-1")).isEqualTo(KEY.strip());
            assertThat(keys.decide("web-1", KEY, null)).isEqualTo(KeyDecision.ACCEPTED);
            assertThat(revocations).hasValue(0);

            keys.setState("web-1", KeyStore.ACCEPTED);
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(eventsTagged("salt/key")).as("no change, no event")
                    .extracting(d -> d.get("act")).containsExactly("pend", "accept"));

            assertThat(keys.setState("web-1", KeyStore.REJECTED).state()).isEqualTo(KeyState.REJECTED);
            assertThat(revocations).hasValue(1);
            assertThat(keys.acceptedKey("web-1")).as("the cached key is dropped").isNull();
            assertThat(keys.decide("web-1", KEY, null)).isEqualTo(KeyDecision.REJECTED);
            assertThat(keys.decide("web-1", OTHER_KEY, null)).as("rejected before the key is compared").isEqualTo(KeyDecision.REJECTED);

            keys.delete("web-1");
            assertThat(revocations).hasValue(2);
            assertThat(keys.list(null)).isEmpty();
            assertThat(eventsTagged("salt/key").getLast()).isEqualTo(Map.of("id", "web-1", "act", "delete"));
            assertThat(keys.decide("web-1", OTHER_KEY, null)).as("a deleted id starts over").isEqualTo(KeyDecision.PENDING);

            for (Runnable missing : List.<Runnable>of(() -> keys.setState("ghost", KeyStore.ACCEPTED), () -> keys.delete("ghost"))) {
                assertThatThrownBy(missing::run).isInstanceOfSatisfying(DomainException.class,
                        e -> assertThat(e.kind()).isEqualTo(DomainException.Kind.NOT_FOUND));
            }
            assertThat(revocations).hasValue(2);
        });
    }

    @OnBothDatabases
    void anEnrollmentTokenAcceptsANewOrPendingKeyAndPlacesTheAgent(String kind) {
        TestDatabases.on(kind, db -> {
            KeyStore keys = keys(db);
            db.jdbi().useHandle(h -> h.execute("INSERT INTO business (bk_biz_id, bk_biz_name, attributes) VALUES (2, 'shop', '{}')"));
            String token = enrollment.create(Principal.system("test"), new EnrollmentTokenRequest("racks", 2L, null)).token();

            assertThat(keys.decide("new-1", KEY, token)).isEqualTo(KeyDecision.ACCEPTED);
            assertThat(agentBusiness(db, "new-1")).contains(2L);
            assertThat(keys.decide("pend-1", KEY, "drv_enroll_wrong")).isEqualTo(KeyDecision.PENDING);
            assertThat(agentBusiness(db, "pend-1")).isEmpty();
            assertThat(keys.decide("pend-1", KEY, "drv_enroll_wrong")).isEqualTo(KeyDecision.PENDING);
            assertThat(keys.decide("pend-1", KEY, token)).isEqualTo(KeyDecision.ACCEPTED);
            assertThat(agentBusiness(db, "pend-1")).contains(2L);
            assertThat(keys.decide("pend-1", OTHER_KEY, token)).as("a token does not replace a key").isEqualTo(KeyDecision.DENIED);

            assertThat(keys.acceptedIds()).containsExactly("new-1", "pend-1");
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(eventsTagged("salt/key"))
                    .contains(Map.of("id", "pend-1", "act", "accept", "detail", "enrollment token")));
            assertThat(enrollment.list(Principal.system("test")).getFirst().uses()).isEqualTo(2);

            keys.delete("new-1");
            assertThat(agentBusiness(db, "new-1")).as("deleting the key forgets the agent").isEmpty();
        });
    }
}
