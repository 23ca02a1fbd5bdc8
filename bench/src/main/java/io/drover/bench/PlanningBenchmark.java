package io.drover.bench;

import io.drover.core.render.TemplateRenderer;
import io.drover.core.subscriptions.InstanceRenderer;
import io.drover.core.subscriptions.InstanceRenderer.StepInput;
import io.drover.core.subscriptions.InventorySnapshot;
import io.drover.core.subscriptions.ChangePlanRendering;
import io.drover.core.subscriptions.ChangePlanner;
import io.drover.core.subscriptions.RenderCache;
import io.drover.core.subscriptions.ScopeInstance;
import io.drover.core.subscriptions.ScopeResolver;
import io.drover.model.inventory.Host;
import io.drover.model.inventory.TopoModule;
import io.drover.model.packages.PackageMetadata;
import io.drover.model.packages.PackageMetadata.ConfigTemplate;
import io.drover.model.subscriptions.ChangeAction;
import io.drover.model.subscriptions.CopyStatus;
import io.drover.model.subscriptions.SubscriptionSpec;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import javax.management.ObjectName;

/**
 * Planning a subscription over 100,000 host instances with 2 steps (an official plugin with two sub-configs and a
 * third-party plugin with a port), all templates using host attributes and the step contexts templated values:
 * the pure planning path of every run (scope resolution, rendering, the planner), without the database.
 *
 * <p>Measures a full plan (nothing rendered before, nothing deployed), a re-plan with nothing changed (everything
 * deployed as planned, renders cached) and a re-plan after one host's attribute changed.
 * Usage: {@code bench/run PlanningBenchmark [hosts] [runs]}.
 */
public final class PlanningBenchmark {
    public static void main(String[] args) {
        HeapPeak heap = HeapPeak.watch();
        int hostCount = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        List<Host> hosts = new ArrayList<>();
        List<TopoModule> modules = new ArrayList<>();
        for (long m = 1; m <= 100; m++) {
            modules.add(new TopoModule(1000 + m, 100L, 2L, "module-" + m, false));
        }
        for (long id = 1; id <= hostCount; id++) {
            hosts.add(host(id, "rack-" + (id % 40)));
        }
        SubscriptionSpec spec = new SubscriptionSpec("bench", new SubscriptionSpec.Scope(2L, "HOST", "TOPO",
                List.of(new SubscriptionSpec.Node("biz", 2L, null, null, null, null, null)), Map.of()), List.of(), null,
                null, null, null, null);
        List<StepInput> steps = steps();
        InstanceRenderer renderer = new InstanceRenderer(new TemplateRenderer());
        RenderCache cache = new RenderCache();
        Map<String, Map<String, List<ChangePlanner.Copy>>> deployed = new HashMap<>();
        List<ChangePlanner.StepSpec> stepSpecs = List.of(new ChangePlanner.StepSpec("beat", "2.1.0"), new ChangePlanner.StepSpec("exporter", "1.0.0"));

        double[] full = new double[runs];
        double[] unchanged = new double[runs];
        double[] oneEdit = new double[runs];
        for (int run = 0; run < runs; run++) {
            cache = new RenderCache();
            deployed.clear();
            long t0 = System.nanoTime();
            // Only each plan's totals are kept: a plan of a million instances is not held while the next one runs.
            Map<ChangeAction, Integer> totals = plan(hosts, modules, spec, steps, renderer, cache, deployed, stepSpecs).totals();
            full[run] = ms(t0);
            check(totals, "INSTALL", hostCount * 2);
            deployAsPlanned(hosts, renderer, cache, deployed, spec, steps, modules);

            long t1 = System.nanoTime();
            totals = plan(hosts, modules, spec, steps, renderer, cache, deployed, stepSpecs).totals();
            unchanged[run] = ms(t1);
            check(totals, "NOT_CHANGE", hostCount * 2);
            if (run == 0) {
                histogram(System.getProperty("drover.bench.histogram"));
            }

            List<Host> edited = new ArrayList<>(hosts);
            edited.set(42, host(43, "rack-moved"));
            long t2 = System.nanoTime();
            totals = plan(edited, modules, spec, steps, renderer, cache, deployed, stepSpecs).totals();
            oneEdit[run] = ms(t2);
            check(totals, "PUSH_CONFIG", 2);
            plan(hosts, modules, spec, steps, renderer, cache, deployed, stepSpecs); // back to the deployed state
            System.out.printf(Locale.ROOT, "run %d: full %.0f ms, unchanged %.0f ms, one host edited %.0f ms%n",
                    run + 1, full[run], unchanged[run], oneEdit[run]);
        }
        System.out.printf(Locale.ROOT, "%,d host instances x 2 steps: full plan median %.0f ms, re-plan unchanged median %.0f ms,"
                        + " re-plan after one edit median %.0f ms (%d runs, %d cores, max heap %d MiB, peak heap used %d MiB,"
                        + " peak after GC %d MiB)%n", hostCount, median(full), median(unchanged), median(oneEdit), runs,
                Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20, heap.peakUsed() >> 20,
                heap.peakAfterGc() >> 20);
    }

    /** Equal attribute maps and module lists are shared, as an inventory read with few distinct values can. */
    private static final Map<Object, Object> SHARED = new ConcurrentHashMap<>();

    static Host host(long id, String rack) {
        List<Long> modules = shared(List.of(1001 + id % 100));
        Map<String, Object> attributes = shared(Map.of("rack", rack, "region", "eu-" + (id % 3), "env", "prod"));
        return new Host(id, 2L, "10." + (id >> 16 & 255) + "." + (id >> 8 & 255) + "." + (id & 255), 0L, "host-" + id,
                "linux", "x86_64", modules, attributes);
    }

    @SuppressWarnings("unchecked")
    private static <T> T shared(T value) {
        return (T) SHARED.computeIfAbsent(value, k -> value);
    }

    static List<StepInput> steps() {
        PackageMetadata beat = new PackageMetadata("bkmonitorbeat", "2.1.0", null, "official", List.of("linux"),
                List.of("x86_64"), null, null, null, null, null, null, List.of(
                new ConfigTemplate("bkmonitorbeat_script.conf", "etc/bkmonitorbeat", "script.j2", "yaml", false),
                new ConfigTemplate("bkmonitorbeat_http.conf", "etc/bkmonitorbeat", "http.j2", "yaml", false)),
                null, null, null, null);
        PackageMetadata exporter = new PackageMetadata("node_exporter", "1.0.0", null, "external", List.of("linux"),
                List.of("x86_64"), null, null, null, null, "9100-9199", null,
                List.of(new ConfigTemplate("exporter.yaml", "etc", "exporter.j2", "yaml", true)), null, null, null, null);
        return List.of(
                new StepInput("beat", beat, Map.of(
                        "script.j2", "name: {{ target.host.bk_host_name }}-disk\nperiod: {{ period }}s\nrack: {{ rack }}\n",
                        "http.j2", "url: http://{{ cmdb_instance.host.bk_host_innerip }}/health\nregion: {{ cmdb_instance.host.region }}\n"),
                        List.of(), Map.of("period", 60, "rack", "{{ cmdb_instance.host.rack }}")),
                new StepInput("exporter", exporter, Map.of("exporter.j2",
                        "listen: {{ control_info.listen_ip }}:{{ control_info.listen_port }}\nhost: {{ target.host.bk_host_name }}\n"
                                + "labels: {env: {{ cmdb_instance.host.env }}, beat_rack: {{ step_data.beat.context.rack }}}\n"),
                        List.of(), Map.of("interval", 30)));
    }

    static ChangePlanner.Plan plan(List<Host> hosts, List<TopoModule> modules, SubscriptionSpec spec, List<StepInput> steps,
                             InstanceRenderer renderer, RenderCache cache, Map<String, Map<String, List<ChangePlanner.Copy>>> deployed,
                             List<ChangePlanner.StepSpec> stepSpecs) {
        InventorySnapshot inventory = new InventorySnapshot(hosts, modules, List.of());
        List<ScopeInstance> instances = ScopeResolver.resolve(7, spec, inventory, cache::known).instances();
        ChangePlanRendering rendering = rendering(spec, steps, renderer, cache);
        // Each instance's md5s are made (or taken from the cache) as the planner reaches it, not all held at once.
        Stream<ChangePlanner.Desired> desired = instances.parallelStream().map(i -> new ChangePlanner.Desired(i.instanceId(),
                Set.copyOf(i.targetHosts()), Set.of(), rendering.desiredSteps(i)));
        ChangePlanner.Plan plan = ChangePlanner.plan(true, stepSpecs, desired, deployed, List.of());
        rendering.retain(instances);
        return plan;
    }

    /** As the server plans: no copy deployed yet, so the exporter renders with its range's first port. */
    static ChangePlanRendering rendering(SubscriptionSpec spec, List<StepInput> steps, InstanceRenderer renderer, RenderCache cache) {
        return new ChangePlanRendering(renderer, spec.scope(), steps, Map.of(), Map.of("exporter", 9100), cache);
    }

    /** Records every planned copy as deployed with the md5s it was planned with. */
    static void deployAsPlanned(List<Host> hosts, InstanceRenderer renderer, RenderCache cache,
                                Map<String, Map<String, List<ChangePlanner.Copy>>> deployed, SubscriptionSpec spec,
                                List<StepInput> steps, List<TopoModule> modules) {
        List<ScopeInstance> instances = ScopeResolver.resolve(7, spec, new InventorySnapshot(hosts, modules, List.of()),
                cache::known).instances();
        ChangePlanRendering rendering = rendering(spec, steps, renderer, cache);
        for (ScopeInstance i : instances) {
            Map<String, List<ChangePlanner.Copy>> byStep = new HashMap<>();
            rendering.desiredSteps(i).forEach((step, d) -> byStep.put(step, List.of(new ChangePlanner.Copy(i.host().bkHostId(),
                    step.equals("beat") ? "2.1.0" : "1.0.0", CopyStatus.RUNNING, d.files()))));
            deployed.put(i.instanceId(), Map.copyOf(byStep));
        }
        rendering.retain(instances);
    }

    /** With {@code -Ddrover.bench.histogram=FILE}: the live objects between two plans, by class, written to FILE. */
    static void histogram(String file) {
        if (file == null) {
            return;
        }
        try {
            Object text = ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                    new Object[] {new String[0]}, new String[] {String[].class.getName()});
            Files.writeString(Path.of(file), String.valueOf(text));
        } catch (Exception e) {
            throw new IllegalStateException("class histogram: " + e, e);
        }
    }

    static void check(Map<ChangeAction, Integer> totals, String action, int expected) {
        int got = totals.getOrDefault(ChangeAction.valueOf(action), 0);
        if (got != expected) {
            throw new IllegalStateException("expected " + expected + " " + action + ", got " + totals);
        }
    }

    static double ms(long start) {
        return (System.nanoTime() - start) / 1e6;
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
