package io.drover.core.subscriptions;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.core.render.TemplateRenderer;
import io.drover.core.subscriptions.InstanceRenderer.RenderedStep;
import io.drover.core.subscriptions.InstanceRenderer.StepInput;
import io.drover.core.subscriptions.ChangePlanner.DesiredStep;
import io.drover.model.inventory.Host;
import io.drover.model.inventory.ServiceInstance;
import io.drover.model.inventory.ServiceProcess;
import io.drover.model.inventory.TopoModule;
import io.drover.model.packages.PackageMetadata;
import io.drover.model.packages.PackageMetadata.ConfigTemplate;
import io.drover.model.subscriptions.SubscriptionSpec;
import io.drover.model.subscriptions.SubscriptionSpec.Node;
import io.drover.model.subscriptions.SubscriptionSpec.Scope;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ScopeAndRenderTest {
    // business 2: set 20 with modules 21 (hosts 1, 2; mysql on host 2) and 22 (host 3); business 3: module 31 (host 4)
    static final List<TopoModule> MODULES = List.of(new TopoModule(21L, 20L, 2L, "web", false),
            new TopoModule(22L, 20L, 2L, "db", false), new TopoModule(31L, 30L, 3L, "other", false));
    static final InventorySnapshot INVENTORY = new InventorySnapshot(
            List.of(host(1, 2, 21), host(2, 2, 21), host(3, 2, 22), host(4, 3, 31)), MODULES,
            List.of(new ServiceInstance(7L, "mysql-7", 2L, 21L, 2L, Map.of("mysql_user", "monitor", "env", "prod"),
                    List.of(new ServiceProcess("mysqld", "10.0.0.2", List.of(3306), "tcp")))));

    static final PackageMetadata BEAT = new PackageMetadata("bkmonitorbeat", "2.1.0", null, "official", List.of("linux"),
            List.of("x86_64"), null, null, null, null, null, null,
            List.of(new ConfigTemplate("bkmonitorbeat_script.conf", "etc/bkmonitorbeat", "t/script.j2", "yaml", false)),
            null, null, null, null);

    static Host host(long id, long biz, long module) {
        return new Host(id, biz, "10.0.0." + id, 0L, "host-" + id, "linux", "x86_64", List.of(module), Map.of("rack", "r" + id));
    }

    static SubscriptionSpec spec(String objectType, String nodeType, List<Node> nodes, List<Node> targets, Map<String, Object> selector) {
        return new SubscriptionSpec("s", new Scope(2L, objectType, nodeType, nodes, selector), List.of(), targets, null, null, null, null);
    }

    static Node topo(String obj, long id) {
        return new Node(obj, id, null, null, null, null, null);
    }

    static List<String> ids(ScopeResolver.Resolution r) {
        return r.instances().stream().map(ScopeInstance::instanceId).toList();
    }

    @Test
    void topoNodesResolveHostsOfTheirBusinessOnly() {
        assertThat(ids(ScopeResolver.resolve(1, spec("HOST", "TOPO", List.of(topo("module", 21)), null, Map.of()), INVENTORY)))
                .containsExactly("host|instance|host|1", "host|instance|host|2");
        assertThat(ids(ScopeResolver.resolve(1, spec("HOST", "TOPO", List.of(topo("set", 20), topo("module", 22)), null, Map.of()), INVENTORY)))
                .containsExactly("host|instance|host|1", "host|instance|host|2", "host|instance|host|3");
        assertThat(ids(ScopeResolver.resolve(1, spec("HOST", "TOPO", List.of(topo("biz", 2)), null, Map.of()), INVENTORY)))
                .hasSize(3);
        ScopeResolver.Resolution missing = ScopeResolver.resolve(1, spec("HOST", "TOPO", List.of(topo("module", 99)), null, Map.of()), INVENTORY);
        assertThat(missing.instances()).isEmpty();
        assertThat(missing.missing()).containsExactly("module 99 in business 2");
    }

    @Test
    void nodesAndTargetHostsOfAnotherBusinessAreNeverPlannedWhateverTheyClaim() {
        // a node naming its own business 3, a business node for 3, a host of 3 listed by id and by address:
        // the subscription's business (2) is the wall, the nodes are reported and resolve to nothing
        ScopeResolver.Resolution topo = ScopeResolver.resolve(1, spec("HOST", "TOPO", List.of(
                new Node("module", 31L, 3L, null, null, null, null), topo("biz", 3), topo("module", 31)), null, Map.of()), INVENTORY);
        assertThat(topo.instances()).isEmpty();
        assertThat(topo.missing()).containsExactly("module 31 in business 3: outside the subscription's business 2",
                "biz 3 in business 2", "module 31 in business 2");
        ScopeResolver.Resolution listed = ScopeResolver.resolve(1, spec("HOST", "INSTANCE", List.of(
                new Node(null, null, 3L, 4L, null, null, null), new Node(null, null, null, null, "10.0.0.4", 0L, null)), null, Map.of()),
                INVENTORY);
        assertThat(listed.instances()).isEmpty();
        assertThat(listed.missing()).containsExactly("host 4 in business 3: outside the subscription's business 2",
                "host 10.0.0.4 (cloud 0) in business 2");
        ScopeResolver.Resolution services = ScopeResolver.resolve(1, spec("SERVICE", "INSTANCE", List.of(
                new Node(null, null, 3L, null, null, null, 7L)), null, Map.of()), INVENTORY);
        assertThat(services.instances()).isEmpty();
    }

    @Test
    void aTargetHostThatIsNotInTheSubscriptionsBusinessIsNotATarget() {
        // host 4 is of business 3 (it moved there, or was named so): never deployed to; with no target host left in
        // business 2, no instance is planned (its copies depart as out of business, they are not followed)
        ScopeResolver.Resolution mixed = ScopeResolver.resolve(1, spec("HOST", "INSTANCE", List.of(
                new Node(null, null, null, 1L, null, null, null)), List.of(new Node(null, null, null, 4L, null, null, null),
                new Node(null, null, null, 3L, null, null, null)), Map.of()), INVENTORY);
        assertThat(mixed.instances()).singleElement().satisfies(i -> assertThat(i.targetHosts()).containsExactly(3L));
        assertThat(mixed.missing()).containsExactly("target host 4 in business 3: outside the subscription's business 2");
        ScopeResolver.Resolution none = ScopeResolver.resolve(1, spec("HOST", "INSTANCE", List.of(
                new Node(null, null, null, 1L, null, null, null)), List.of(new Node(null, null, null, null, "10.0.0.4", 0L, null)),
                Map.of()), INVENTORY);
        assertThat(none.instances()).isEmpty();
        assertThat(none.missing()).containsExactly("target host 10.0.0.4 (cloud 0) in business 3: outside the subscription's business 2",
                "no target host is in business 2: no instance is planned");
    }

    @Test
    void staticNodesCollapseDuplicatesAndIdsFollowNodeMan() {
        ScopeResolver.Resolution r = ScopeResolver.resolve(5, spec("HOST", "INSTANCE", List.of(
                new Node(null, null, null, 1L, null, null, null), new Node(null, null, null, null, "10.0.0.1", 0L, null),
                new Node(null, null, null, 4L, null, null, null)), null, Map.of()), INVENTORY);
        assertThat(r.instances()).singleElement().satisfies(i -> {
            assertThat(i.instanceId()).isEqualTo("host|instance|host|1");
            assertThat(i.groupId()).isEqualTo("sub_5_host_1");
        });
        assertThat(r.missing()).containsExactly("host 4 in business 2");
        ScopeResolver.Resolution services = ScopeResolver.resolve(5, spec("SERVICE", "TOPO", List.of(topo("module", 21)),
                List.of(new Node(null, null, null, 3L, null, null, null)), Map.of()), INVENTORY);
        assertThat(services.instances()).singleElement().satisfies(i -> {
            assertThat(i.instanceId()).isEqualTo("service|instance|service|7");
            assertThat(i.groupId()).isEqualTo("sub_5_service_7");
            assertThat(i.targetHosts()).containsExactly(3L);
        });
    }

    @Test
    void instanceSelectorFilters() {
        assertThat(ids(ScopeResolver.resolve(1, spec("HOST", "TOPO", List.of(topo("biz", 2)), null,
                Map.of("host.rack", List.of("r1", "r3"))), INVENTORY))).containsExactly("host|instance|host|1", "host|instance|host|3");
        assertThat(ids(ScopeResolver.resolve(1, spec("SERVICE", "TOPO", List.of(topo("biz", 2)), null,
                Map.of("service.labels.env", "test")), INVENTORY))).isEmpty();
    }

    @Test
    void stepsRenderTheirContextFirstThenTemplatesAtTheSeedsPaths() {
        ScopeInstance mysql = ScopeResolver.resolve(2, spec("SERVICE", "TOPO", List.of(topo("module", 21)), null, Map.of()), INVENTORY)
                .instances().getFirst();
        PackageMetadata beat = BEAT;
        PackageMetadata exporter = new PackageMetadata("mysql_exporter", "1.0.0", null, "external", List.of("linux"), List.of("x86_64"),
                null, null, null, null, "9104-9110", null, List.of(new ConfigTemplate("config.yaml", "etc", "config.j2", "yaml", true)),
                null, null, null, null);
        List<StepInput> steps = List.of(
                new StepInput("beat", beat, Map.of("t/script.j2", "host: {{ target.host.bk_host_name }}\nuser: {{ user }}\n"),
                        List.of(), Map.of("user", "{{ cmdb_instance.service.labels.mysql_user }}")),
                new StepInput("mysql_exporter", exporter, Map.of("config.j2",
                        "listen: {{ control_info.listen_ip }}:{{ control_info.listen_port }}\nbeat_user: {{ step_data.beat.context.user }}\n"
                                + "mysql: {{ cmdb_instance.process.bind_ip }}:{{ cmdb_instance.process.port }}\n"), List.of(), Map.of()));
        Map<String, RenderedStep> rendered = new InstanceRenderer(new TemplateRenderer()).render(mysql, null, steps,
                Map.of("mysql_exporter", 9104));
        assertThat(rendered.get("beat").files()).containsExactly(Map.entry(
                "usr/local/gse/plugins/etc/bkmonitorbeat/bkmonitorbeat_script_sub_2_service_7.conf", "host: host-2\nuser: monitor"));
        assertThat(rendered.get("mysql_exporter").files()).containsExactly(Map.entry(
                "usr/local/gse/external_plugins/sub_2_service_7/mysql_exporter/etc/config.yaml",
                "listen: 10.0.0.2:9104\nbeat_user: monitor\nmysql: 10.0.0.2:3306"));

        List<StepInput> broken = List.of(new StepInput("beat", beat, Map.of("t/script.j2", "x: {{ cmdb_instance.host.nope }}"),
                List.of(), Map.of()));
        RenderedStep failed = new InstanceRenderer(new TemplateRenderer()).render(mysql, null, broken, Map.of()).get("beat");
        assertThat(failed.error()).startsWith("step beat: template bkmonitorbeat_script.conf: line 1:").contains("nope");
    }

    @Test
    void anAttributeWithoutAValueIsNoneAsInJinja2() {
        Map<String, Object> network = new java.util.HashMap<>();
        network.put("outer_ip", null);
        Host bare = new Host(9L, 2L, "10.0.0.9", 0L, "host-9", "linux", "x86_64", List.of(21L), Map.of("network", network));
        ScopeInstance instance = ScopeResolver.resolve(1, spec("HOST", "INSTANCE", List.of(new Node(null, null, null, 9L,
                null, null, null)), null, Map.of()), new InventorySnapshot(List.of(bare), MODULES, List.of()))
                .instances().getFirst();
        RenderedStep step = new InstanceRenderer(new TemplateRenderer()).render(instance, null, List.of(new StepInput("beat", BEAT,
                Map.of("t/script.j2", "outer: {{ cmdb_instance.host.network.outer_ip }} {% if not cmdb_instance.host.network.outer_ip %}"
                        + "inner only{% endif %} {{ cmdb_instance.process.port is none }}"),
                List.of(), Map.of())), Map.of()).get("beat");
        assertThat(step.error()).isNull();
        assertThat(step.files().values()).containsExactly("outer: None inner only True");
    }

    @Test
    void theRenderCacheKeepsMd5sWhileTheirInputsAreEqualAndRendersAgainWhenOneChanges() {
        SubscriptionSpec spec = spec("HOST", "TOPO", List.of(topo("set", 20)), null, Map.of());
        List<StepInput> steps = List.of(new StepInput("beat", BEAT, Map.of("t/script.j2", "rack: {{ cmdb_instance.host.rack }}\n"),
                List.of(), Map.of()));
        InstanceRenderer renderer = new InstanceRenderer(new TemplateRenderer());
        RenderCache cache = new RenderCache();
        List<ScopeInstance> first = ScopeResolver.resolve(2, spec, INVENTORY).instances();
        ChangePlanRendering plan1 = new ChangePlanRendering(renderer, spec.scope(), steps, Map.of(), Map.of(), cache);
        Map<String, Map<String, DesiredStep>> before = desired(plan1, first);

        // Resolved again from a new snapshot: equal instances, new objects; the md5s are reused.
        InventorySnapshot edited = new InventorySnapshot(List.of(host(1, 2, 21), host(2, 2, 21),
                new Host(3L, 2L, "10.0.0.3", 0L, "host-3", "linux", "x86_64", List.of(22L), Map.of("rack", "moved"))), MODULES, List.of());
        List<ScopeInstance> again = ScopeResolver.resolve(2, spec, edited).instances();
        assertThat(cache.get(again.get(0), Map.of())).as("host 1: same inputs").isEqualTo(before.get(again.get(0).instanceId()));
        assertThat(cache.get(again.get(1), Map.of("beat", 9100))).as("host 2: its port changed").isNull();
        assertThat(cache.get(again.get(2), Map.of())).as("host 3: its rack changed").isNull();
        ChangePlanRendering plan2 = new ChangePlanRendering(renderer, spec.scope(), steps,
                Map.of(ScopeInstance.hostInstanceId(2), Map.of("beat", 9100)), Map.of(), cache);
        Map<String, Map<String, DesiredStep>> after = desired(plan2, again);
        String one = ScopeInstance.hostInstanceId(1);
        String three = ScopeInstance.hostInstanceId(3);
        assertThat(after.get(one)).isEqualTo(before.get(one));
        assertThat(after.get(three).get("beat").files()).isNotEqualTo(before.get(three).get("beat").files())
                .containsValue(io.drover.core.Hashing.md5("rack: moved"));

        // Only instances still in the scope are kept; the third plan reuses what the second rendered.
        ChangePlanRendering plan3 = new ChangePlanRendering(renderer, spec.scope(), steps,
                Map.of(ScopeInstance.hostInstanceId(2), Map.of("beat", 9100)), Map.of(), cache);
        assertThat(cache.get(again.get(1), Map.of("beat", 9100))).isEqualTo(after.get(ScopeInstance.hostInstanceId(2)));
        Map<String, Map<String, DesiredStep>> third = desired(plan3, again.subList(0, 2));
        assertThat(cache.size()).isEqualTo(2);
        assertThat(cache.known(three)).isNull();
        assertThat(third.get(one)).isEqualTo(before.get(one));
        assertThat(third.get(ScopeInstance.hostInstanceId(2))).isEqualTo(after.get(ScopeInstance.hostInstanceId(2)));
    }

    @Test
    void theCacheKeepsAllStepsMd5sAsOneArrayAndARenderErrorAsItWas() {
        SubscriptionSpec spec = spec("HOST", "TOPO", List.of(topo("set", 20)), null, Map.of());
        PackageMetadata exporter = new PackageMetadata("node_exporter", "1.0.0", null, "external", List.of("linux"),
                List.of("x86_64"), null, null, null, null, "9100-9199", null,
                List.of(new ConfigTemplate("exporter.yaml", "etc", "exporter.j2", "yaml", true),
                        new ConfigTemplate("extra.yaml", "etc", "extra.j2", "yaml", true)), null, null, null, null);
        List<StepInput> steps = List.of(
                new StepInput("beat", BEAT, Map.of("t/script.j2", "rack: {{ cmdb_instance.host.rack }}\n"), List.of(), Map.of()),
                new StepInput("exporter", exporter, Map.of("exporter.j2", "port: {{ control_info.listen_port }}\n",
                        "extra.j2", "{% if cmdb_instance.host.rack == 'r3' %}{{ cmdb_instance.host.nope }}{% endif %}"
                                + "host: {{ cmdb_instance.host.bk_host_id }}\n"), List.of(), Map.of()));
        InstanceRenderer renderer = new InstanceRenderer(new TemplateRenderer());
        List<ScopeInstance> instances = ScopeResolver.resolve(2, spec, INVENTORY).instances();
        RenderCache cache = new RenderCache();
        ChangePlanRendering rendering = new ChangePlanRendering(renderer, spec.scope(), steps, Map.of(), Map.of("exporter", 9100), cache);
        Map<String, Map<String, DesiredStep>> planned = desired(rendering, instances);
        for (ScopeInstance i : instances) {
            Map<String, DesiredStep> cached = cache.get(i, Map.of("exporter", 9100));
            assertThat(cached).isEqualTo(planned.get(i.instanceId())).containsOnlyKeys("beat", "exporter");
            Map<String, RenderedStep> files = renderer.render(i, spec.scope(), steps, Map.of("exporter", 9100));
            for (String step : List.of("beat", "exporter")) {
                assertThat(cached.get(step).renderError()).isEqualTo(files.get(step).error());
                Map<String, String> md5s = new java.util.HashMap<>();
                files.get(step).files().forEach((path, text) -> md5s.put(path, io.drover.core.Hashing.md5(text)));
                assertThat(cached.get(step).files()).isEqualTo(md5s);
                assertThat(md5s).isEqualTo(cached.get(step).files());
            }
        }
        assertThat(planned.get(ScopeInstance.hostInstanceId(3)).get("exporter").renderError()).contains("extra.yaml");
        assertThat(planned.get(ScopeInstance.hostInstanceId(1)).get("exporter").files()).hasSize(2);
    }

    @Test
    void aScopeResolvedAgainKeepsTheIdStringsOfTheInstancesResolvedBefore() {
        SubscriptionSpec spec = spec("HOST", "TOPO", List.of(topo("set", 20)), null, Map.of());
        List<StepInput> steps = List.of(new StepInput("beat", BEAT, Map.of("t/script.j2", "rack: {{ cmdb_instance.host.rack }}\n"),
                List.of(), Map.of()));
        RenderCache cache = new RenderCache();
        List<ScopeInstance> first = ScopeResolver.resolve(2, spec, INVENTORY, cache::known).instances();
        desired(new ChangePlanRendering(new InstanceRenderer(new TemplateRenderer()), spec.scope(), steps, Map.of(), Map.of(), cache),
                first.subList(0, 2));

        List<ScopeInstance> again = ScopeResolver.resolve(2, spec, INVENTORY, cache::known).instances();
        assertThat(again).isEqualTo(first).isEqualTo(ScopeResolver.resolve(2, spec, INVENTORY).instances());
        for (int i = 0; i < 2; i++) {
            assertThat(again.get(i)).isNotSameAs(first.get(i));
            assertThat(again.get(i).instanceId()).isSameAs(first.get(i).instanceId());
            assertThat(again.get(i).groupId()).isSameAs(first.get(i).groupId());
            assertThat(again.get(i).targetHosts()).isSameAs(first.get(i).targetHosts());
        }
        assertThat(again.get(2).instanceId()).as("not in the cache").isNotSameAs(first.get(2).instanceId());

        // Another subscription's group ids are not taken, nor an instance that the lookup names wrongly.
        List<ScopeInstance> other = ScopeResolver.resolve(3, spec, INVENTORY, cache::known).instances();
        assertThat(other.getFirst().groupId()).isEqualTo("sub_3_host_1");
        assertThat(other.getFirst().instanceId()).isSameAs(first.getFirst().instanceId());
        assertThat(ScopeResolver.resolve(2, spec, INVENTORY, id -> first.get(2)).instances()).isEqualTo(first);
    }

    @Test
    void targetHostsOfAServiceScopeAreFoundWithoutAHostIndexBuiltUpFront() {
        SubscriptionSpec spec = spec("SERVICE", "TOPO", List.of(topo("module", 21)),
                List.of(new Node(null, null, null, 1L, null, null, null), new Node(null, null, null, 3L, null, null, null)), Map.of());
        ScopeResolver.Resolution r = ScopeResolver.resolve(2, spec, INVENTORY);
        assertThat(r.instances()).singleElement().satisfies(i -> {
            assertThat(i.host().bkHostId()).isEqualTo(2L);
            assertThat(i.targetHosts()).containsExactly(1L, 3L);
        });
        assertThat(INVENTORY.host(4)).isNotNull();
        assertThat(INVENTORY.host(5)).isNull();
    }

    /** What a plan of these instances compares (and keeps in the cache), as the planner would ask for it. */
    private static Map<String, Map<String, DesiredStep>> desired(ChangePlanRendering rendering, List<ScopeInstance> instances) {
        Map<String, Map<String, DesiredStep>> out = new java.util.HashMap<>();
        instances.forEach(i -> out.put(i.instanceId(), rendering.desiredSteps(i)));
        rendering.retain(instances);
        return out;
    }

    @Test
    void filesRenderedOnDemandAreTheOnesWhoseMd5sWerePlanned() {
        PackageMetadata exporter = new PackageMetadata("node_exporter", "1.0.0", null, "external", List.of("linux"),
                List.of("x86_64"), null, null, null, null, "9100-9199", null,
                List.of(new ConfigTemplate("exporter.yaml", "etc", "exporter.j2", "yaml", true)), null, null, null, null);
        List<StepInput> steps = List.of(
                new StepInput("beat", BEAT, Map.of("t/script.j2", "name: {{ target.host.bk_host_name }}\nrack: {{ rack }}\n"),
                        List.of(), Map.of("rack", "{{ cmdb_instance.host.rack }}")),
                new StepInput("exporter", exporter, Map.of("exporter.j2",
                        "listen: {{ control_info.listen_ip }}:{{ control_info.listen_port }}\nrack: {{ step_data.beat.context.rack }}\n"),
                        List.of(), Map.of()));
        SubscriptionSpec spec = spec("HOST", "TOPO", List.of(topo("set", 20)), null, Map.of());
        List<ScopeInstance> instances = ScopeResolver.resolve(2, spec, INVENTORY).instances();
        InstanceRenderer renderer = new InstanceRenderer(new TemplateRenderer());
        String deployed = ScopeInstance.hostInstanceId(2);
        ChangePlanRendering rendering = new ChangePlanRendering(renderer, spec.scope(), steps, Map.of(deployed, Map.of("exporter", 9107)),
                Map.of("exporter", 9100), new RenderCache());
        for (ScopeInstance i : instances) {
            Map<String, DesiredStep> planned = rendering.desiredSteps(i);
            Map<String, Integer> ports = Map.of("exporter", i.instanceId().equals(deployed) ? 9107 : 9100);
            Map<String, RenderedStep> full = renderer.render(i, spec.scope(), steps, ports);
            assertThat(rendering.files(i)).isEqualTo(full);
            for (String step : List.of("beat", "exporter")) {
                Map<String, String> md5s = new java.util.HashMap<>();
                full.get(step).files().forEach((path, text) -> md5s.put(path, io.drover.core.Hashing.md5(text)));
                assertThat(planned.get(step).files()).isEqualTo(md5s);
                assertThat(md5s).isEqualTo(planned.get(step).files());
                assertThat(planned.get(step).files().keySet()).isEqualTo(full.get(step).files().keySet());
            }
        }
        ScopeInstance two = instances.stream().filter(i -> i.instanceId().equals(deployed)).findFirst().orElseThrow();
        assertThat(rendering.files(two).get("exporter").files()).containsValue("listen: 10.0.0.2:9107\nrack: r2");
    }
}
