package io.drover.server.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.drover.model.Json;
import io.drover.model.api.Page;
import io.drover.model.api.Problem.FieldError;
import io.drover.model.auth.Role;
import io.drover.model.events.Event;
import io.drover.model.inventory.Business;
import io.drover.model.inventory.Host;
import io.drover.model.inventory.HostMove;
import io.drover.model.inventory.ImportResult;
import io.drover.model.inventory.InventoryDocument;
import io.drover.model.inventory.ServiceInstance;
import io.drover.model.inventory.ServiceProcess;
import io.drover.model.inventory.TopoModule;
import io.drover.model.inventory.TopoSet;
import io.drover.server.auth.Principal;
import io.drover.server.auth.TokenStore;
import io.drover.server.events.EventBus;
import io.drover.server.events.EventStore;
import io.drover.server.errors.DomainException;
import io.drover.server.store.Database;
import io.drover.server.testing.TestDatabases;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The storage suite: runs the same tests on SQLite and on the real PostgreSQL (see the two subclasses). */
abstract class InventoryStoreContract {
    static final Principal ADMIN = new Principal(1, "admin", Role.ADMIN, Set.of());

    private TestDatabases.Target target;
    Database db;
    InventoryService inventory;
    InventoryImport importer;
    EventStore events;
    final List<Event> published = new CopyOnWriteArrayList<>();

    abstract TestDatabases.Target target();

    @BeforeEach
    void open() {
        target = target();
        db = target.open();
        EventBus bus = new EventBus();
        bus.subscribe(e -> true, published::add);
        events = new EventStore(db.jdbi(), bus, Clock.systemUTC());
        inventory = new InventoryService(db.jdbi(), new InventoryStore(), events);
        importer = new InventoryImport(db.jdbi(), new InventoryStore(), events);
    }

    @AfterEach
    void close() {
        db.close();
        target.drop().run();
    }

    long outboxRows() {
        return db.jdbi().withHandle(h -> h.createQuery("SELECT COUNT(*) FROM event_outbox").mapTo(Long.class).one());
    }

    static InventoryDocument demo() {
        return new InventoryDocument(
                List.of(new Business(2L, "shop", Map.of("owner", "ops"))),
                List.of(new TopoSet(10L, 2L, "web"), new TopoSet(11L, 2L, "data")),
                List.of(new TopoModule(20L, 10L, null, "nginx", false), new TopoModule(21L, 10L, null, "api", false),
                        new TopoModule(22L, 11L, null, "mysql", false)),
                List.of(host(1, "10.0.0.1", 20), host(2, "10.0.0.2", 20, 21), host(3, "10.0.0.3", 21),
                        host(4, "10.0.0.4", 22)),
                List.of(new ServiceInstance(100L, "mysql-1", null, 22L, 4L, Map.of("mysql_user", "monitor"),
                        List.of(new ServiceProcess("mysqld", "10.0.0.4", List.of(3306), "tcp")))));
    }

    static Host host(long id, String ip, long... modules) {
        List<Long> ids = new ArrayList<>();
        for (long m : modules) {
            ids.add(m);
        }
        return new Host(id, 2L, ip, 0L, "host-" + id, "linux", "x86_64", ids, Map.of("rack", "r" + id));
    }

    @Test
    void modulesFollowTheSameRulesWhetherCreatedUpdatedOrImported() {
        importer.importDocument(ADMIN, demo());
        long idleSet = inventory.modules(ADMIN, 2L, null).stream().filter(TopoModule::idle).findFirst().orElseThrow().bkSetId();
        String oneIdle = "business 2 already has idle module";
        assertThatThrownBy(() -> inventory.createModule(ADMIN, new TopoModule(30L, idleSet, null, "second idle", true)))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.getMessage()).contains(oneIdle));
        assertThatThrownBy(() -> importer.importDocument(ADMIN, new InventoryDocument(List.of(), List.of(),
                List.of(new TopoModule(30L, idleSet, null, "second idle", true)), List.of(), List.of())))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.getMessage()).contains(oneIdle));
        String noMove = "a module cannot move to another set";
        assertThatThrownBy(() -> inventory.updateModule(ADMIN, 20L, new TopoModule(20L, 11L, null, "nginx", false)))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.getMessage()).contains(noMove));
        assertThatThrownBy(() -> importer.importDocument(ADMIN, new InventoryDocument(List.of(), List.of(),
                List.of(new TopoModule(20L, 11L, null, "nginx", false)), List.of(), List.of())))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.getMessage()).contains(noMove));
        assertThatThrownBy(() -> inventory.createModule(ADMIN, new TopoModule(31L, 10L, null, "api", false)))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.getMessage())
                        .contains("set 10 already has module 'api' (21)"));
        long before = outboxRows();
        assertThat(inventory.updateModule(ADMIN, 21L, new TopoModule(21L, null, null, "api", false)).bkModuleName()).isEqualTo("api");
        assertThat(outboxRows()).as("an unchanged module emits nothing").isEqualTo(before);
    }

    @Test
    void creatingABusinessCreatesItsIdleSetAndModule() {
        Business created = inventory.createBusiness(ADMIN, new Business(null, "payments", Map.of()));
        List<TopoModule> modules = inventory.modules(ADMIN, created.bkBizId(), null);
        assertThat(modules).singleElement().satisfies(m -> {
            assertThat(m.idle()).isTrue();
            assertThat(m.bkModuleName()).isEqualTo(InventoryService.IDLE_MODULE_NAME);
        });
        assertThat(published).extracting(Event::tag).containsExactly("drover/inventory/business/created",
                "drover/inventory/set/created", "drover/inventory/module/created");
        Host host = inventory.createHost(ADMIN, new Host(null, created.bkBizId(), "10.9.9.9", null, "h", null, null,
                null, null));
        assertThat(host.bkModuleIds()).containsExactly(modules.getFirst().bkModuleId());
        assertThat(host.bkCloudId()).isZero();
    }

    @Test
    void everyHostUnderANodeComesBackExactlyWhateverItsTextHolds() {
        importer.importDocument(ADMIN, demo());
        // what a listing must not confuse: the separators of SQLite's packed rows, control characters, emoji, NUL in
        // attributes, missing values
        Host odd = new Host(9L, 2L, "10.0.0.9", 0L, "a\u0001b,1:2\u001f😀", null, "x86_64", List.of(20L, 22L),
                Map.of("k", "v:,\u0000", "emoji", "😀"));
        inventory.createHost(ADMIN, odd);
        List<Host> listed = db.jdbi().inTransaction(h -> new InventoryStore().allHosts(h, TopoFilter.module(20)));
        assertThat(listed).extracting(Host::bkHostId).containsExactly(1L, 2L, 9L);
        Host back = listed.get(2);
        assertThat(back.bkHostName()).isEqualTo("a\u0001b,1:2\u001f😀");
        assertThat(back.osType()).isNull();
        assertThat(back.cpuArch()).isEqualTo("x86_64");
        assertThat(back.bkHostInnerip()).isEqualTo("10.0.0.9");
        assertThat(back.bkModuleIds()).containsExactly(20L, 22L);
        assertThat(back.attributes()).containsEntry("k", "v:,\u0000").containsEntry("emoji", "😀");
        assertThat(listed.get(0).bkHostName()).isEqualTo("host-1");
        assertThat(listed.get(0).osType()).isEqualTo("linux");
    }

    @Test
    void listsHostsUnderEveryKindOfNodeInIdOrderWithPlacements() {
        importer.importDocument(ADMIN, demo());
        assertThat(inventory.hosts(ADMIN, null, null, 20L, null, 0, 100).items()).extracting(Host::bkHostId).containsExactly(1L, 2L);
        assertThat(inventory.hosts(ADMIN, null, 10L, null, null, 0, 100).items()).extracting(Host::bkHostId)
                .containsExactly(1L, 2L, 3L);
        Page<Host> all = inventory.hosts(ADMIN, 2L, null, null, null, 0, 100);
        assertThat(all.total()).isEqualTo(4);
        assertThat(all.items()).extracting(Host::bkHostId).containsExactly(1L, 2L, 3L, 4L);
        assertThat(all.items().get(1).bkModuleIds()).containsExactly(20L, 21L);
        assertThat(all.items().get(0).attributes()).containsEntry("rack", "r1");

        Page<Host> second = inventory.hosts(ADMIN, 2L, null, null, null, 1, 2);
        assertThat(second.items()).extracting(Host::bkHostId).containsExactly(2L, 3L);
        assertThat(second.items().getFirst().bkModuleIds()).containsExactly(20L, 21L);
        assertThat(second.total()).isEqualTo(4);

        assertThat(inventory.serviceInstances(ADMIN, null, 11L, null, null, 0, 10).items())
                .extracting(ServiceInstance::name).containsExactly("mysql-1");
        assertThat(inventory.serviceInstances(ADMIN, null, null, 20L, null, 0, 10).items()).isEmpty();
    }

    @Test
    void searchesHostsByNameOrAddressInAnyCaseWithWildcardsTakenLiterally() {
        importer.importDocument(ADMIN, demo());
        inventory.createHost(ADMIN, new Host(5L, 2L, "10.1.1.5", 0L, "Web_50%", null, null, null, null));
        assertThat(inventory.hosts(ADMIN, null, null, null, "HOST-", 0, 100).items()).extracting(Host::bkHostId)
                .containsExactly(1L, 2L, 3L, 4L);
        Page<Host> byAddress = inventory.hosts(ADMIN, null, null, null, "0.0.", 1, 2);
        assertThat(byAddress.total()).isEqualTo(4);
        assertThat(byAddress.items()).extracting(Host::bkHostId).containsExactly(2L, 3L);
        assertThat(inventory.hosts(ADMIN, null, null, 21L, "host", 0, 100).items()).extracting(Host::bkHostId)
                .containsExactly(2L, 3L);
        assertThat(inventory.hosts(ADMIN, null, null, null, "b_50%", 0, 100).items()).extracting(Host::bkHostId)
                .containsExactly(5L);
        assertThat(inventory.hosts(ADMIN, null, null, null, "_", 0, 100).items()).extracting(Host::bkHostId)
                .containsExactly(5L);
        assertThat(inventory.hosts(ADMIN, null, null, null, "%", 0, 100).items()).extracting(Host::bkHostId)
                .containsExactly(5L);
        assertThat(inventory.hosts(ADMIN, null, null, null, "!", 0, 100).total()).isZero();
        assertThat(inventory.hosts(ADMIN, null, null, null, "nothing", 0, 100).total()).isZero();
    }

    @Test
    void aBusinessScopedCallerSeesOnlyItsBusinesses() {
        importer.importDocument(ADMIN, demo());
        Business other = inventory.createBusiness(ADMIN, new Business(7L, "other", Map.of()));
        inventory.createHost(ADMIN, new Host(50L, other.bkBizId(), "10.7.0.1", 0L, "o", null, null, null, null));
        Principal scoped = new Principal(9, "shop-ops", Role.OPERATOR, Set.of(2L));
        assertThat(inventory.businesses(scoped)).extracting(Business::bkBizId).containsExactly(2L);
        assertThat(inventory.hosts(scoped, null, null, null, null, 0, 100).items()).extracting(Host::bkHostId)
                .containsExactly(1L, 2L, 3L, 4L);
        // another business's host is as missing: the answer does not tell it from one that does not exist
        assertThatThrownBy(() -> inventory.host(scoped, 50L)).isInstanceOf(DomainException.class)
                .hasMessage("host 50 does not exist")
                .satisfies(e -> assertThat(((DomainException) e).kind()).isEqualTo(DomainException.Kind.NOT_FOUND));
    }

    @Test
    void importIsOneTransactionABadLastRecordImportsNothingAndEmitsNothing() {
        InventoryDocument good = demo();
        List<ServiceInstance> services = new ArrayList<>(good.serviceInstances());
        services.add(new ServiceInstance(101L, "broken", null, 22L, 999L, Map.of(), List.of()));
        InventoryDocument bad = new InventoryDocument(good.businesses(), good.sets(), good.modules(), good.hosts(), services);

        assertThatThrownBy(() -> importer.importDocument(ADMIN, bad)).isInstanceOfSatisfying(DomainException.class, e -> {
            assertThat(e.kind()).isEqualTo(DomainException.Kind.INVALID);
            assertThat(e.errors()).containsExactly(new FieldError("service_instances[1].bk_host_id", "host 999 does not exist"));
        });
        assertThat(inventory.businesses(ADMIN)).isEmpty();
        assertThat(inventory.hosts(ADMIN, null, null, null, null, 0, 100).total()).isZero();
        assertThat(outboxRows()).isZero();
        assertThat(published).isEmpty();
    }

    @Test
    void importReportsEveryInvalidFieldBeforeWritingAnything() {
        InventoryDocument good = demo();
        List<Host> hosts = new ArrayList<>(good.hosts());
        hosts.set(1, new Host(2L, 2L, "10.0.0.999", 0L, "x", "plan9", null, List.of(20L), Map.of()));
        hosts.add(new Host(3L, 2L, "10.0.0.1", 0L, "dup", null, null, List.of(20L), Map.of()));
        InventoryDocument bad = new InventoryDocument(good.businesses(), good.sets(), good.modules(), hosts, List.of());
        assertThatThrownBy(() -> importer.importDocument(ADMIN, bad)).isInstanceOfSatisfying(DomainException.class, e ->
                assertThat(e.errors()).extracting(FieldError::field).containsExactlyInAnyOrder(
                        "hosts[1].bk_host_innerip", "hosts[1].os_type", "hosts[4]", "hosts[4].bk_host_innerip"));
        assertThat(outboxRows()).isZero();
    }

    @Test
    void importingTheSameDocumentTwiceChangesNothingAndEmitsNoEvents() {
        ImportResult first = importer.importDocument(ADMIN, demo());
        assertThat(first.created()).isEqualTo(1 + 2 + 3 + 2 + 4 + 1);
        long rows = outboxRows();
        int publishedAfterFirst = published.size();
        assertThat(publishedAfterFirst).isEqualTo(rows);

        ImportResult second = importer.importDocument(ADMIN, demo());
        assertThat(second).isEqualTo(new ImportResult(0, 0, 1 + 2 + 3 + 4 + 1));
        assertThat(outboxRows()).isEqualTo(rows);
        assertThat(published).hasSize(publishedAfterFirst);

        InventoryDocument exported = inventory.export(ADMIN, null);
        ImportResult third = importer.importDocument(ADMIN, Json.json().convertValue(exported, InventoryDocument.class));
        assertThat(third.created()).isZero();
        assertThat(third.updated()).isZero();
    }

    @Test
    void anUpdateEmitsOneEventWithBeforeAndAfter() {
        importer.importDocument(ADMIN, demo());
        published.clear();
        Host before = inventory.host(ADMIN, 3L);
        inventory.updateHost(ADMIN, 3L, new Host(null, null, before.bkHostInnerip(), 0L, before.bkHostName(),
                before.osType(), before.cpuArch(), null, Map.of("rack", "r9")));
        assertThat(published).singleElement().satisfies(e -> {
            assertThat(e.tag()).isEqualTo("drover/inventory/host/updated");
            assertThat(e.data()).containsEntry("bk_biz_id", 2);
            assertThat(e.data().get("before")).asString().contains("rack=r3");
            assertThat(e.data().get("after")).asString().contains("rack=r9");
        });
        published.clear();
        Host same = inventory.host(ADMIN, 3L);
        inventory.updateHost(ADMIN, 3L, same);
        assertThat(published).isEmpty();
    }

    @Test
    void movingAHostToAnotherBusinessLandsInItsIdleModule() {
        importer.importDocument(ADMIN, demo());
        Business other = inventory.createBusiness(ADMIN, new Business(7L, "other", Map.of()));
        long idle = inventory.modules(ADMIN, other.bkBizId(), null).getFirst().bkModuleId();
        published.clear();
        Host moved = inventory.moveHost(ADMIN, 1L, new HostMove(7L, null));
        assertThat(moved.bkBizId()).isEqualTo(7L);
        assertThat(moved.bkModuleIds()).containsExactly(idle);
        assertThat(published).extracting(Event::tag).containsExactly("drover/inventory/host/moved");
        assertThat(inventory.hosts(ADMIN, null, null, 20L, null, 0, 10).items()).extracting(Host::bkHostId).containsExactly(2L);
    }

    @Test
    void aMoveThatWouldOrphanServiceInstancesIsRefusedAndChangesNothing() {
        importer.importDocument(ADMIN, demo());
        long rows = outboxRows();
        assertThatThrownBy(() -> inventory.moveHost(ADMIN, 4L, new HostMove(null, List.of(20L))))
                .isInstanceOfSatisfying(DomainException.class, e -> {
                    assertThat(e.kind()).isEqualTo(DomainException.Kind.CONFLICT);
                    assertThat(e.getMessage()).contains("mysql-1 (#100)");
                });
        assertThat(inventory.host(ADMIN, 4L).bkModuleIds()).containsExactly(22L);
        assertThat(outboxRows()).isEqualTo(rows);
    }

    @Test
    void conflictsAndReferencesAreReportedPrecisely() {
        importer.importDocument(ADMIN, demo());
        assertThatThrownBy(() -> inventory.createHost(ADMIN, new Host(null, 2L, "10.0.0.1", 0L, "dup", null, null, null, null)))
                .isInstanceOfSatisfying(DomainException.class, e -> {
                    assertThat(e.kind()).isEqualTo(DomainException.Kind.CONFLICT);
                    assertThat(e.getMessage()).isEqualTo("10.0.0.1 in cloud 0 is already host 1");
                });
        assertThatThrownBy(() -> inventory.createHost(ADMIN, new Host(null, 2L, "10.0.0.50", 0L, "x", null, null,
                List.of(999L), null))).isInstanceOfSatisfying(DomainException.class, e ->
                assertThat(e.errors()).containsExactly(new FieldError("bk_module_ids[0]", "module 999 does not exist")));
        assertThatThrownBy(() -> inventory.deleteModule(ADMIN, 20L)).isInstanceOfSatisfying(DomainException.class,
                e -> assertThat(e.kind()).isEqualTo(DomainException.Kind.CONFLICT));
        long idle = inventory.modules(ADMIN, 2L, null).stream().filter(TopoModule::idle).findFirst().orElseThrow().bkModuleId();
        assertThatThrownBy(() -> inventory.deleteModule(ADMIN, idle)).isInstanceOfSatisfying(DomainException.class,
                e -> assertThat(e.code()).isEqualTo("idle_module"));
        assertThatThrownBy(() -> inventory.deleteBusiness(ADMIN, 2L)).isInstanceOfSatisfying(DomainException.class,
                e -> assertThat(e.getMessage()).contains("4 host(s)"));
        assertThatThrownBy(() -> inventory.host(ADMIN, 77L)).isInstanceOfSatisfying(DomainException.class,
                e -> assertThat(e.kind()).isEqualTo(DomainException.Kind.NOT_FOUND));
    }

    @Test
    void eventsLeftUnpublishedByACrashArePublishedOnTheNextStart() {
        db.jdbi().useTransaction(h -> events.append(h, "drover/inventory/host/updated", Map.of("id", 1)));
        assertThat(published).isEmpty();
        assertThat(events.publishPending()).isEqualTo(1);
        assertThat(published).extracting(Event::tag).containsExactly("drover/inventory/host/updated");
        assertThat(events.publishPending()).isZero();
    }

    @Test
    void hotPathEventsAreStoredPublishedAndDeliveredFromMemoryAfterCommit() {
        List<Map.Entry<String, Map<String, Object>>> returns = List.of(Map.entry("salt/job/1/ret/a", Map.of("id", "a")),
                Map.entry("salt/job/1/ret/b", Map.of("id", "b")));
        List<Event> written = db.jdbi().inTransaction(h -> events.appendPublished(h, returns));
        assertThat(written).extracting(Event::tag).containsExactly("salt/job/1/ret/a", "salt/job/1/ret/b");
        assertThat(written.get(1).id()).isGreaterThan(written.get(0).id());
        assertThat(events.publishPending()).as("not published a second time by the outbox").isZero();
        events.publishCommitted(written);
        await().atMost(java.time.Duration.ofSeconds(5)).until(() -> published.size() == 2);
        assertThat(published).extracting(Event::id).containsExactly(written.get(0).id(), written.get(1).id());
        assertThat(events.after(written.get(0).id() - 1, io.drover.core.match.Glob.compile("salt/job/*"), 10))
                .extracting(Event::data).containsExactly(Map.of("id", "a"), Map.of("id", "b"));
    }

    @Test
    void tokensAreStoredHashedAndStopWorkingWhenRevoked() {
        TokenStore tokens = new TokenStore(db.jdbi(), Clock.systemUTC());
        var created = tokens.create(new io.drover.model.auth.TokenRequest("ci", Role.VIEWER, List.of(2L)));
        assertThat(tokens.authenticate(created.token())).hasValueSatisfying(p -> {
            assertThat(p.role()).isEqualTo(Role.VIEWER);
            assertThat(p.bizIds()).containsExactly(2L);
        });
        String stored = db.jdbi().withHandle(h -> h.createQuery("SELECT token_hash FROM api_token").mapTo(String.class).one());
        assertThat(stored).hasSize(64).doesNotContain(created.token().substring(4, 20));
        tokens.revoke(created.info().id());
        assertThat(tokens.authenticate(created.token())).isEmpty();
        assertThat(tokens.authenticate("drv_nope")).isEmpty();
    }
}
