package io.drover.dist;

import io.drover.model.agents.AgentInfo;
import io.drover.model.jobs.JobRequest;
import io.drover.model.packages.AddonRequest;
import io.drover.model.packages.RegistryRequest;
import io.drover.model.subscriptions.InstanceStatus;
import io.drover.model.subscriptions.SubscriptionInfo;
import io.drover.model.subscriptions.SubscriptionSpec;
import io.drover.model.subscriptions.TaskInfo;
import io.drover.model.Json;
import io.drover.server.DroverServer;
import io.drover.server.auth.Principal;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The quickstart's deployment: the example registry added, its addons enabled (packages into the store), and a
 * subscription deploying demo-exporter (a real process on an allocated port) and bkmonitorbeat's sub-configs to the
 * demo hosts that have local agents. Idempotent: a second quickstart on the same data directory re-runs it.
 */
final class QuickstartDeployment {
    static final String SUBSCRIPTION = "quickstart exporters";

    private final DroverServer server;
    private final Principal principal;
    private final PrintStream out;

    QuickstartDeployment(DroverServer server, Principal principal, PrintStream out) {
        this.server = server;
        this.principal = principal;
        this.out = out;
    }

    /** Runs the deployment and returns the subscription id, or -1 (with the reason printed) when it could not. */
    long deploy(Path registry, int agentCount) throws InterruptedException {
        if (!Files.isDirectory(registry)) {
            out.println("quickstart: no example registry at " + registry + "; skipping the plugin deployment");
            return -1;
        }
        if (server.registries().list().stream().noneMatch(r -> r.name().equals("examples"))) {
            server.registries().add(new RegistryRequest("examples", "local", registry.toString(), null, null));
        }
        enable("demo-exporter", Map.of("api_token", HexFormat.of().formatHex(new SecureRandom().generateSeed(8)),
                "scrape_interval", 30));
        enable("bkmonitorbeat", Map.of());
        if (!awaitAgents(agentCount)) {
            out.println("quickstart: the local agents did not all come online within 90 s; see data/quickstart/host-N/agent.log");
            return -1;
        }
        Path specFile = server.config().dataDir().resolve("quickstart-subscription.yaml");
        if (!Files.exists(specFile)) {
            write(specFile, spec());
        }
        SubscriptionSpec spec = read(specFile);
        SubscriptionInfo existing = server.subscriptions().list(principal, null, null).stream()
                .filter(s -> s.name().equals(SUBSCRIPTION)).findFirst().orElse(null);
        Long task;
        long id;
        if (existing == null) {
            var started = server.subscriptions().create(principal, spec);
            id = started.subscription().id();
            task = started.taskId();
        } else {
            id = existing.id();
            task = server.subscriptions().run(existing, "quickstart", principal.name());
        }
        if (task != null) {
            out.print("deploying demo-exporter and bkmonitorbeat through subscription " + id + " ");
            TaskInfo t;
            do {
                Thread.sleep(1000);
                out.print(".");
                t = server.subscriptions().task(principal, task);
            } while (t.status() == io.drover.model.subscriptions.RunStatus.RUNNING);
            out.println(" " + t.status().wire());
        }
        printResult(id);
        return id;
    }

    private void enable(String addon, Map<String, Object> params) {
        if (server.addons().list().addons().stream().anyMatch(a -> a.name().equals(addon) && a.installedVersion() != null)) {
            return;
        }
        server.addons().enable(new AddonRequest("examples/" + addon, params, false));
    }

    /** Every local agent online, linked to its demo host and answering a ping. */
    private boolean awaitAgents(int count) throws InterruptedException {
        long deadline = System.nanoTime() + 90_000_000_000L;
        while (System.nanoTime() < deadline) {
            List<AgentInfo> agents = server.agents().list(principal).stream()
                    .filter(a -> a.online() && a.bkHostId() != null).toList();
            if (agents.size() >= count) {
                String ids = String.join(",", agents.stream().map(AgentInfo::id).toList());
                var started = server.jobs().start(principal, new JobRequest(ids, "list", "test.ping", List.of(), Map.of(), 5));
                if (server.jobs().await(principal, started.jid(), java.time.Duration.ofSeconds(5)).returns().size() >= count) {
                    return true;
                }
            }
            Thread.sleep(1000);
        }
        return false;
    }

    private void printResult(long id) {
        out.println();
        out.printf("%-24s %-9s %s%n", "INSTANCE", "STATUS", "DEPLOYED");
        for (InstanceStatus i : server.subscriptions().instances(principal, id)) {
            StringBuilder deployed = new StringBuilder();
            for (InstanceStatus.Deployed d : i.deployed()) {
                deployed.append(deployed.isEmpty() ? "" : ", ").append(d.plugin()).append(' ').append(d.version())
                        .append(' ').append(d.status()).append(d.port() == null ? "" : " http://127.0.0.1:" + d.port() + "/");
            }
            out.printf("%-24s %-9s %s%n", i.instanceId(), i.status(), deployed);
        }
    }

    private static String spec() {
        return """
                # The quickstart's subscription: edit it and run `drover sub update 1 -f <this file> --watch`.
                name: quickstart exporters
                scope:
                  bk_biz_id: 2
                  object_type: HOST
                  node_type: TOPO
                  nodes: [{bk_obj_id: module, bk_inst_id: 20}, {bk_obj_id: module, bk_inst_id: 21}]
                batch_size: 1          # the local agents share one machine's ports: one host at a time
                steps:
                  - id: exporter
                    type: PLUGIN
                    config: {plugin_name: demo-exporter, plugin_version: latest}
                    params:
                      context: {scrape_interval: 30}
                  - id: beat
                    type: PLUGIN
                    config:
                      plugin_name: bkmonitorbeat
                      config_templates: [{name: bkmonitorbeat_script.conf}, {name: bkmonitorbeat_http.conf}]
                    params:
                      context: {period: 60, url: "http://{{ cmdb_instance.host.bk_host_innerip }}/health"}
                """;
    }

    private static void write(Path file, String text) {
        try {
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static SubscriptionSpec read(Path file) {
        try {
            return Json.yaml().readValue(file.toFile(), SubscriptionSpec.class);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }
}
