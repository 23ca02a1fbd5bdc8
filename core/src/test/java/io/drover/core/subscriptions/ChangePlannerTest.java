package io.drover.core.subscriptions;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.core.render.RenderException;
import io.drover.core.render.TemplateRenderer;
import io.drover.core.subscriptions.ChangePlanner.Copy;
import io.drover.core.subscriptions.ChangePlanner.Departed;
import io.drover.core.subscriptions.ChangePlanner.Departure;
import io.drover.core.subscriptions.ChangePlanner.Desired;
import io.drover.core.subscriptions.ChangePlanner.DesiredStep;
import io.drover.core.subscriptions.ChangePlanner.Plan;
import io.drover.core.subscriptions.ChangePlanner.StepAction;
import io.drover.core.subscriptions.ChangePlanner.StepSpec;
import io.drover.model.subscriptions.ChangeAction;
import io.drover.model.subscriptions.CopyStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The planner cases of the subscriptions issue. Desired files are really rendered from templates, host attributes
 * and the step context, so "a context edit" and "a CMDB edit" are edits of those inputs, not of md5s.
 */
class ChangePlannerTest {
    static final TemplateRenderer RENDERER = new TemplateRenderer();

    /** A host of the fake inventory. */
    static final class Host {
        final long id;
        final Map<String, Object> attrs = new HashMap<>();
        boolean online = true;

        Host(long id) {
            this.id = id;
            attrs.put("bk_host_id", id);
            attrs.put("bk_host_innerip", "10.0.0." + id);
            attrs.put("label", "rack-" + id);
        }
    }

    Map<Long, Host> hosts;
    Map<String, String> templates;
    Map<String, Object> context;
    List<StepSpec> steps;
    Map<String, Map<String, List<Copy>>> deployed;

    @BeforeEach
    void fixture() {
        hosts = new LinkedHashMap<>();
        for (long id = 1; id <= 3; id++) {
            hosts.put(id, new Host(id));
        }
        templates = new LinkedHashMap<>();
        templates.put("etc/exporter.yaml", "ip: {{ cmdb_instance.host.bk_host_innerip }}\nrack: {{ cmdb_instance.host.label }}\n"
                + "interval: {{ interval }}\n");
        templates.put("etc/extra.yaml", "user: {{ user }}\n");
        context = new LinkedHashMap<>(Map.of("interval", 60, "user", "monitor"));
        steps = List.of(new StepSpec("exporter", "1.0.0"));
        deployed = new HashMap<>();
    }

    static String id(long host) {
        return "host|instance|host|" + host;
    }

    Desired desired(long hostId, Set<Long> targets) {
        Map<String, DesiredStep> byStep = new LinkedHashMap<>();
        for (StepSpec step : steps) {
            Map<String, Object> ctx = new HashMap<>(context);
            ctx.put("cmdb_instance", Map.of("host", hosts.get(hostId).attrs));
            Map<String, String> files = new LinkedHashMap<>();
            try {
                templates.forEach((path, source) -> files.put(path, io.drover.core.Hashing.md5(RENDERER.render(path, source, ctx))));
                byStep.put(step.id(), DesiredStep.rendered(files));
            } catch (RenderException e) {
                byStep.put(step.id(), DesiredStep.failed(e.getMessage()));
            }
        }
        Set<Long> offline = new java.util.TreeSet<>();
        targets.stream().filter(t -> !hosts.get(t).online).forEach(offline::add);
        return new Desired(id(hostId), targets, offline, byStep);
    }

    List<Desired> scope(long... hostIds) {
        List<Desired> list = new ArrayList<>();
        for (long h : hostIds) {
            list.add(desired(h, Set.of(h)));
        }
        return list;
    }

    Plan plan(boolean enabled, List<Desired> scope, List<Departed> departed) {
        return ChangePlanner.plan(enabled, steps, scope, deployed, departed);
    }

    /** Records what a successful run of the plan leaves deployed (what the executor writes after each step). */
    void apply(Plan plan, List<Desired> scope) {
        for (ChangePlanner.InstancePlan ip : plan.instances()) {
            Desired d = scope.stream().filter(x -> x.instanceId().equals(ip.instanceId())).findFirst().orElse(null);
            for (StepAction a : ip.steps()) {
                Map<String, List<Copy>> byStep = deployed.computeIfAbsent(ip.instanceId(), k -> new HashMap<>());
                String version = steps.stream().filter(s -> s.id().equals(a.stepId())).map(StepSpec::version).findFirst().orElse("?");
                switch (a.action()) {
                    case INSTALL, PUSH_CONFIG, START -> byStep.put(a.stepId(), d.targetHosts().stream()
                            .map(h -> new Copy(h, version, CopyStatus.RUNNING, d.steps().get(a.stepId()).files())).toList());
                    case STOP -> byStep.put(a.stepId(), byStep.get(a.stepId()).stream()
                            .map(c -> new Copy(c.hostId(), c.version(), CopyStatus.STOPPED, c.files())).toList());
                    case UNINSTALL -> byStep.remove(a.stepId());
                    default -> { }
                }
            }
        }
    }

    static Map<String, String> actions(Plan plan) {
        Map<String, String> out = new LinkedHashMap<>();
        plan.instances().forEach(ip -> ip.steps().forEach(s ->
                out.put(ip.instanceId() + " " + s.stepId(), s.action() + "/" + s.reason())));
        return out;
    }

    @Test
    void aNewInstanceIsInstalledAndThenNothingChanges() {
        Plan first = plan(true, scope(1, 2), List.of());
        assertThat(actions(first)).containsExactly(
                Map.entry(id(1) + " exporter", "INSTALL/NEW_INSTALL"), Map.entry(id(2) + " exporter", "INSTALL/NEW_INSTALL"));
        assertThat(first.totals()).containsEntry(ChangeAction.INSTALL, 2);
        apply(first, scope(1, 2));
        Plan steady = plan(true, scope(1, 2), List.of());
        assertThat(actions(steady).values()).containsOnly("NOT_CHANGE/UP_TO_DATE");
        assertThat(steady.changesNothing()).isTrue();
    }

    @Test
    void aContextEditPushesConfigToEveryInstance() {
        apply(plan(true, scope(1, 2, 3), List.of()), scope(1, 2, 3));
        context.put("interval", 30);
        assertThat(actions(plan(true, scope(1, 2, 3), List.of())).values()).containsOnly("PUSH_CONFIG/CONFIG_CHANGE");
    }

    @Test
    void aCmdbAttributeEditOnOneHostPushesToThatInstanceOnly() {
        apply(plan(true, scope(1, 2, 3), List.of()), scope(1, 2, 3));
        hosts.get(2L).attrs.put("label", "rack-9");
        Plan plan = plan(true, scope(1, 2, 3), List.of());
        assertThat(actions(plan)).containsEntry(id(2) + " exporter", "PUSH_CONFIG/CONFIG_CHANGE")
                .containsEntry(id(1) + " exporter", "NOT_CHANGE/UP_TO_DATE").containsEntry(id(3) + " exporter", "NOT_CHANGE/UP_TO_DATE");
        assertThat(plan.instances().get(1).steps().getFirst().detail()).isEqualTo("changed etc/exporter.yaml");
    }

    @Test
    void aTemplateRemovedFromTheStepPushesConfig() {
        apply(plan(true, scope(1), List.of()), scope(1));
        templates.remove("etc/extra.yaml");
        StepAction a = plan(true, scope(1), List.of()).instances().getFirst().steps().getFirst();
        assertThat(a.action()).isEqualTo(ChangeAction.PUSH_CONFIG);
        assertThat(a.detail()).isEqualTo("removed etc/extra.yaml");
    }

    @Test
    void aStoppedProcessIsStartedUnlessItsConfigChangedToo() {
        apply(plan(true, scope(1, 2), List.of()), scope(1, 2));
        for (String instance : List.of(id(1), id(2))) {
            deployed.get(instance).computeIfPresent("exporter", (k, copies) -> copies.stream()
                    .map(c -> new Copy(c.hostId(), c.version(), CopyStatus.STOPPED, c.files())).toList());
        }
        hosts.get(2L).attrs.put("label", "moved");
        assertThat(actions(plan(true, scope(1, 2), List.of()))).containsEntry(id(1) + " exporter", "START/PROC_STOPPED")
                .containsEntry(id(2) + " exporter", "PUSH_CONFIG/CONFIG_CHANGE");
    }

    @Test
    void anUnknownLastRunIsInstalledAgain() {
        apply(plan(true, scope(1), List.of()), scope(1));
        deployed.get(id(1)).computeIfPresent("exporter", (k, copies) -> copies.stream()
                .map(c -> new Copy(c.hostId(), c.version(), CopyStatus.UNKNOWN, c.files())).toList());
        assertThat(actions(plan(true, scope(1), List.of()))).containsEntry(id(1) + " exporter", "INSTALL/LAST_RUN_UNKNOWN");
    }

    @Test
    void aVersionChangeReinstalls() {
        apply(plan(true, scope(1), List.of()), scope(1));
        steps = List.of(new StepSpec("exporter", "1.1.0"));
        StepAction a = plan(true, scope(1), List.of()).instances().getFirst().steps().getFirst();
        assertThat(a.action() + "/" + a.reason()).isEqualTo("INSTALL/VERSION_CHANGE");
        assertThat(a.detail()).isEqualTo("1.0.0 → 1.1.0");
    }

    @Test
    void twoTargetHostsButOneDeployedCopyReinstalls() {
        List<Desired> scope = List.of(desired(1, Set.of(1L, 2L)));
        deployed.put(id(1), new HashMap<>(Map.of("exporter", List.of(
                new Copy(1, "1.0.0", CopyStatus.RUNNING, scope.getFirst().steps().get("exporter").files())))));
        StepAction a = plan(true, scope, List.of()).instances().getFirst().steps().getFirst();
        assertThat(a.action() + "/" + a.reason()).isEqualTo("INSTALL/PROC_NUM_NOT_MATCH");
        assertThat(a.detail()).isEqualTo("1 deployed, 2 target host(s)");
    }

    @Test
    void anInstanceThatLeftTheScopeIsUninstalledButNotOneThatLeftTheBusiness() {
        apply(plan(true, scope(1, 2, 3), List.of()), scope(1, 2, 3));
        Plan plan = plan(true, scope(1), List.of(new Departed(id(2), Departure.LEFT_SCOPE, Set.of()),
                new Departed(id(3), Departure.LEFT_BUSINESS, Set.of())));
        assertThat(actions(plan)).containsEntry(id(2) + " exporter", "UNINSTALL/REMOVE_FROM_SCOPE")
                .containsEntry(id(3) + " exporter", "SKIP/OUT_OF_BUSINESS").containsEntry(id(1) + " exporter", "NOT_CHANGE/UP_TO_DATE");
        apply(plan, scope(1));
        assertThat(deployed.get(id(2))).isEmpty();
        assertThat(deployed.get(id(3))).containsKey("exporter");
    }

    @Test
    void deletingTheSubscriptionUninstallsEveryCopyEvenWhereTheHostLeftTheBusinessButNotOnAnOfflineAgent() {
        apply(plan(true, scope(1, 2, 3), List.of()), scope(1, 2, 3));
        Plan delete = plan(true, List.of(), List.of(new Departed(id(1), Departure.SUBSCRIPTION_DELETED, Set.of()),
                new Departed(id(2), Departure.SUBSCRIPTION_DELETED, Set.of()),
                new Departed(id(3), Departure.SUBSCRIPTION_DELETED, Set.of(3L))));
        assertThat(actions(delete)).containsEntry(id(1) + " exporter", "UNINSTALL/SUBSCRIPTION_DELETED")
                .containsEntry(id(2) + " exporter", "UNINSTALL/SUBSCRIPTION_DELETED")
                .containsEntry(id(3) + " exporter", "SKIP/AGENT_OFFLINE");
    }

    @Test
    void anOfflineAgentIsSkippedAndPlannedAgainWhenBack() {
        hosts.get(2L).online = false;
        Plan plan = plan(true, scope(1, 2), List.of());
        assertThat(actions(plan)).containsEntry(id(2) + " exporter", "SKIP/AGENT_OFFLINE")
                .containsEntry(id(1) + " exporter", "INSTALL/NEW_INSTALL");
        apply(plan, scope(1, 2));
        hosts.get(2L).online = true;
        assertThat(actions(plan(true, scope(1, 2), List.of()))).containsEntry(id(2) + " exporter", "INSTALL/NEW_INSTALL")
                .containsEntry(id(1) + " exporter", "NOT_CHANGE/UP_TO_DATE");
    }

    @Test
    void disablingStopsAndReEnablingStarts() {
        apply(plan(true, scope(1, 2), List.of()), scope(1, 2));
        Plan disabled = plan(false, scope(1, 2), List.of());
        assertThat(actions(disabled).values()).containsOnly("STOP/SUBSCRIPTION_DISABLED");
        apply(disabled, scope(1, 2));
        assertThat(actions(plan(false, scope(1, 2), List.of())).values()).containsOnly("NOT_CHANGE/SUBSCRIPTION_DISABLED");
        assertThat(actions(plan(true, scope(1, 2), List.of())).values()).containsOnly("START/PROC_STOPPED");
    }

    @Test
    void aRenderErrorFailsThatInstanceWithTheTemplateAndLine() {
        templates.put("etc/bad.yaml", "a: 1\nb: {{ no_such_variable }}\n");
        StepAction a = plan(true, scope(1), List.of()).instances().getFirst().steps().getFirst();
        assertThat(a.action()).isEqualTo(ChangeAction.FAIL);
        assertThat(a.reason()).isEqualTo(Reason.RENDER_FAILED);
        assertThat(a.detail()).contains("template etc/bad.yaml").contains("line 2").contains("no_such_variable");
    }

    @Test
    void multiStepSubscriptionsActInStepOrderAndRemoveInReverse() {
        steps = List.of(new StepSpec("runtime", "1.0.0"), new StepSpec("exporter", "1.0.0"));
        Plan install = plan(true, scope(1), List.of());
        assertThat(install.instances().getFirst().steps()).extracting(StepAction::stepId).containsExactly("runtime", "exporter");
        apply(install, scope(1));
        Plan remove = plan(true, List.of(), List.of(new Departed(id(1), Departure.LEFT_SCOPE, Set.of())));
        assertThat(remove.instances().getFirst().steps()).extracting(s -> s.stepId() + ":" + s.action())
                .containsExactly("exporter:UNINSTALL", "runtime:UNINSTALL");
        steps = List.of(new StepSpec("runtime", "1.0.0"));
        assertThat(actions(plan(true, scope(1), List.of()))).containsEntry(id(1) + " exporter", "UNINSTALL/STEP_REMOVED")
                .containsEntry(id(1) + " runtime", "NOT_CHANGE/UP_TO_DATE");
    }

    @Test
    void desiredInstancesStreamedGiveTheSamePlanAsAList() {
        apply(plan(true, scope(1, 2), List.of()), scope(1, 2));
        hosts.get(2L).attrs.put("label", "rack-moved");
        List<Departed> departed = List.of(new Departed(id(9), Departure.LEFT_SCOPE, Set.of()));
        deployed.put(id(9), Map.of("exporter", List.of(new Copy(9, "1.0.0", CopyStatus.RUNNING, Map.of()))));
        Plan fromList = plan(true, scope(3, 2, 1), departed);
        Plan fromStream = ChangePlanner.plan(true, steps, scope(3, 2, 1).parallelStream(), deployed, departed);
        assertThat(fromStream).isEqualTo(fromList);
        assertThat(actions(fromStream)).containsExactly(
                Map.entry(id(1) + " exporter", "NOT_CHANGE/UP_TO_DATE"), Map.entry(id(2) + " exporter", "PUSH_CONFIG/CONFIG_CHANGE"),
                Map.entry(id(3) + " exporter", "INSTALL/NEW_INSTALL"), Map.entry(id(9) + " exporter", "UNINSTALL/REMOVE_FROM_SCOPE"));
    }

    @Test
    void anInstanceListedTwiceIsPlannedOnceWithItsLastListingAndDepartsOnlyIfAbsent() {
        Desired online = desired(1, Set.of(1L));
        hosts.get(1L).online = false;
        Desired offline = desired(1, Set.of(1L));
        Plan plan = plan(true, List.of(online, offline), List.of(new Departed(id(1), Departure.LEFT_SCOPE, Set.of()),
                new Departed(id(5), Departure.LEFT_SCOPE, Set.of()), new Departed(id(5), Departure.LEFT_BUSINESS, Set.of())));
        assertThat(plan.instances()).extracting(ChangePlanner.InstancePlan::instanceId).containsExactly(id(1), id(5));
        assertThat(actions(plan)).containsExactly(Map.entry(id(1) + " exporter", "SKIP/AGENT_OFFLINE"));
    }

    @Test
    void copiesOnOtherHostsThanTheTargetsAreInstalledAgain() {
        Set<Long> targets = Set.of(1L, 2L);
        Map<String, String> files = desired(1, targets).steps().get("exporter").files();
        deployed.put(id(1), Map.of("exporter", List.of(new Copy(1, "1.0.0", CopyStatus.RUNNING, files),
                new Copy(1, "1.0.0", CopyStatus.RUNNING, files))));
        assertThat(actions(plan(true, List.of(desired(1, targets)), List.of())))
                .containsExactly(Map.entry(id(1) + " exporter", "INSTALL/PROC_NUM_NOT_MATCH"));
        deployed.put(id(1), Map.of("exporter", List.of(new Copy(2, "1.0.0", CopyStatus.RUNNING, files),
                new Copy(3, "1.0.0", CopyStatus.RUNNING, files))));
        assertThat(actions(plan(true, List.of(desired(1, targets)), List.of())))
                .containsExactly(Map.entry(id(1) + " exporter", "INSTALL/PROC_NUM_NOT_MATCH"));
        deployed.put(id(1), Map.of("exporter", List.of(new Copy(2, "1.0.0", CopyStatus.RUNNING, files),
                new Copy(1, "1.0.0", CopyStatus.RUNNING, files))));
        assertThat(actions(plan(true, List.of(desired(1, targets)), List.of())))
                .containsExactly(Map.entry(id(1) + " exporter", "NOT_CHANGE/UP_TO_DATE"));
    }

    @Test
    void instancesWithTheSameDecisionsShareOneListOfThem() {
        Plan plan = plan(true, scope(1, 2, 3), List.of());
        assertThat(plan.instances().get(0).steps()).isSameAs(plan.instances().get(2).steps())
                .containsExactly(new StepAction("exporter", ChangeAction.INSTALL, Reason.NEW_INSTALL, null));
    }
}
