package io.drover.server.subscriptions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.drover.model.Json;
import io.drover.model.subscriptions.SubscriptionInfo;
import io.drover.model.subscriptions.SubscriptionSpec;
import io.drover.server.errors.DomainException;
import io.drover.server.testing.OnBothDatabases;
import io.drover.server.testing.TestDatabases;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.List;

/** The subscription store on SQLite and on the real PostgreSQL. */
class SubscriptionStoreTest {
    static SubscriptionSpec spec(String yaml) {
        try {
            return Json.yaml().readValue(yaml, SubscriptionSpec.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static final SubscriptionSpec EXPORTERS = spec("""
            name: "  exporters  "
            scope: {bk_biz_id: 2, object_type: HOST, node_type: INSTANCE, nodes: [{bk_host_id: 1}, {ip: 10.0.0.9, bk_cloud_id: 0}],
                    instance_selector: {os: linux}}
            steps:
              - {id: exporter, type: PLUGIN, config: {plugin_name: exporter, plugin_version: 1.0.0,
                 config_templates: [{name: exporter.yaml, version: latest}]}, params: {context: {port: 9100}}}
            target_hosts: [{bk_host_id: 1}]
            run_immediately: true
            enable: false
            batch_size: 5
            max_failure_ratio: 0.25
            """);
    static final SubscriptionSpec AGENTS = spec("""
            name: agents
            scope: {bk_biz_id: 3, object_type: SERVICE, node_type: TOPO, nodes: [{bk_obj_id: module, bk_inst_id: 20}]}
            steps: [{id: a, config: {plugin_name: agentd}}, {id: b, config: {plugin_name: exporter}}]
            """);

    static DomainException.Kind kindOf(Runnable action) {
        try {
            action.run();
        } catch (DomainException e) {
            return e.kind();
        }
        throw new AssertionError("no DomainException");
    }

    @OnBothDatabases
    void createdSubscriptionsRoundTripAndAreListedByBusinessAndPlugin(String kind) {
        TestDatabases.on(kind, db -> {
            SubscriptionStore store = new SubscriptionStore(db.jdbi(), Clock.systemUTC());
            SubscriptionInfo exporters = store.create(EXPORTERS);
            SubscriptionInfo agents = store.create(AGENTS);

            assertThat(store.get(exporters.id())).isEqualTo(exporters);
            assertThat(exporters.name()).isEqualTo("exporters");
            assertThat(exporters.bkBizId()).isEqualTo(2);
            assertThat(exporters.objectType()).isEqualTo("HOST");
            assertThat(exporters.nodeType()).isEqualTo("INSTANCE");
            assertThat(exporters.enabled()).as("enable: false").isFalse();
            assertThat(exporters.spec()).isEqualTo(EXPORTERS);
            assertThat(exporters.createdAt()).isEqualTo(exporters.updatedAt()).isNotNull();
            assertThat(agents.enabled()).as("enable absent").isTrue();
            assertThat(agents.id()).isGreaterThan(exporters.id());

            assertThat(store.list(null, null)).extracting(SubscriptionInfo::id).containsExactly(exporters.id(), agents.id());
            assertThat(store.list(3L, null)).extracting(SubscriptionInfo::name).containsExactly("agents");
            assertThat(store.list(9L, null)).isEmpty();
            assertThat(store.list(null, "exporter")).extracting(SubscriptionInfo::name).containsExactly("exporters", "agents");
            assertThat(store.list(2L, "agentd")).isEmpty();
            assertThat(store.list(3L, "agentd")).extracting(SubscriptionInfo::name).containsExactly("agents");
        });
    }

    @OnBothDatabases
    void updateChangesNameScopeAndStepsButNotTheFixedFields(String kind) {
        TestDatabases.on(kind, db -> {
            SubscriptionStore store = new SubscriptionStore(db.jdbi(), Clock.systemUTC());
            SubscriptionInfo before = store.create(EXPORTERS);
            SubscriptionSpec.Scope scope = EXPORTERS.scope();
            SubscriptionSpec renamed = new SubscriptionSpec("node exporters", new SubscriptionSpec.Scope(4L, "HOST", "TOPO",
                    List.of(new SubscriptionSpec.Node("biz", 4L, null, null, null, null, null)), scope.instanceSelector()),
                    AGENTS.steps(), EXPORTERS.targetHosts(), false, true, null, null);
            SubscriptionInfo after = store.update(before.id(), renamed);
            assertThat(after.name()).isEqualTo("node exporters");
            assertThat(after.bkBizId()).isEqualTo(4);
            assertThat(after.nodeType()).isEqualTo("TOPO");
            assertThat(after.spec()).isEqualTo(renamed);
            assertThat(after.enabled()).as("update leaves enabled alone").isFalse();
            assertThat(after.createdAt()).isEqualTo(before.createdAt());
            assertThat(after.updatedAt()).isAfterOrEqualTo(before.updatedAt());

            SubscriptionSpec otherTargets = new SubscriptionSpec("x", EXPORTERS.scope(), EXPORTERS.steps(), null, null, null, null, null);
            assertThatThrownBy(() -> store.update(before.id(), otherTargets)).isInstanceOfSatisfying(DomainException.class,
                    e -> assertThat(e.code()).isEqualTo("target_hosts_fixed"));
            SubscriptionSpec service = new SubscriptionSpec("x", new SubscriptionSpec.Scope(2L, "SERVICE", "INSTANCE",
                    List.of(new SubscriptionSpec.Node(null, null, null, null, null, null, 5L)), null),
                    EXPORTERS.steps(), EXPORTERS.targetHosts(), null, null, null, null);
            assertThatThrownBy(() -> store.update(before.id(), service)).isInstanceOfSatisfying(DomainException.class,
                    e -> assertThat(e.code()).isEqualTo("object_type_fixed"));
            SubscriptionSpec invalid = new SubscriptionSpec(" ", EXPORTERS.scope(), List.of(), EXPORTERS.targetHosts(),
                    null, null, 0, 2.0);
            assertThatThrownBy(() -> store.update(before.id(), invalid)).isInstanceOfSatisfying(DomainException.class,
                    e -> assertThat(e.errors()).extracting(f -> f.field())
                            .containsExactlyInAnyOrder("name", "steps", "batch_size", "max_failure_ratio"));
            assertThatThrownBy(() -> store.create(invalid)).isInstanceOf(DomainException.class);
            assertThat(store.list(null, null)).hasSize(1).first().isEqualTo(after);
            assertThat(kindOf(() -> store.update(999, EXPORTERS))).isEqualTo(DomainException.Kind.NOT_FOUND);
        });
    }

    @OnBothDatabases
    void enablingAndDeleting(String kind) {
        TestDatabases.on(kind, db -> {
            SubscriptionStore store = new SubscriptionStore(db.jdbi(), Clock.systemUTC());
            long id = store.create(EXPORTERS).id();
            store.setEnabled(id, true);
            assertThat(store.get(id).enabled()).isTrue();
            store.setEnabled(id, false);
            assertThat(store.get(id).enabled()).isFalse();
            assertThat(kindOf(() -> store.setEnabled(999, true))).isEqualTo(DomainException.Kind.NOT_FOUND);

            store.delete(id);
            assertThat(kindOf(() -> store.get(id))).isEqualTo(DomainException.Kind.NOT_FOUND);
            assertThat(store.list(null, null)).isEmpty();
            store.delete(id);
        });
    }
}
