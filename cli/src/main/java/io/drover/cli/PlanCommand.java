package io.drover.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.model.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code drover plan run|get|list}: execution plans in the unified agent's format. */
@Command(name = "plan", description = "Execution plans (Murano unified agent format): run one on a target, read results.",
        subcommands = {PlanCommand.Run.class, PlanCommand.Get.class, PlanCommand.ListPlans.class})
public final class PlanCommand {
    static final List<Output.Column> SUMMARY = List.of(Output.Column.of("ID", "id"), Output.Column.of("NAME", "name"),
            Output.Column.of("STATUS", "status"), Output.Column.of("HOSTS", "hosts"), Output.Column.of("OK", "succeeded"),
            Output.Column.of("FAILED", "failed"), Output.Column.of("BY", "created_by"), Output.Column.of("AT", "created_at"));

    @Command(name = "run", description = "Run a plan FILE (JSON or YAML) on the agents TARGET names; prints log lines and "
            + "each host's result as they arrive and exits 1 if any host failed or did not answer.")
    static final class Run implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(index = "0", paramLabel = "FILE", description = "The plan document.") Path file;
        @Parameters(index = "1", paramLabel = "TARGET", description = "Agents, as for drover run (a glob by default).") String target;
        @ArgGroup(exclusive = true) RunCommand.TargetType type = new RunCommand.TargetType();
        @Option(names = {"-p", "--param"}, paramLabel = "KEY=VALUE", description = "A plan parameter (repeatable); the "
                + "value is read as YAML, so 3 is a number and [a, b] a list.") List<String> params = List.of();
        @Option(names = "--timeout", description = "Seconds to wait for every host (default 3600).") int timeout = 3600;

        @Override
        public Integer call() {
            Map<String, Object> request = new LinkedHashMap<>();
            request.put("tgt", target);
            request.put("tgt_type", type.type());
            request.put("plan", readPlan(file));
            request.put("parameters", parameters(params));
            request.put("timeout", timeout);
            JsonNode started = client.client().post("/api/v1/plans", request);
            String id = started.path("id").asText();
            var err = client.spec.commandLine().getErr();
            err.println("plan " + id + " sent to " + started.path("minions").size() + " agent(s) (job " + started.path("jid").asText() + ")");
            err.flush();
            Set<String> printed = new HashSet<>();
            int logsPrinted = 0;
            long deadline = System.nanoTime() + timeout * 1_000_000_000L;
            JsonNode plan;
            while (true) {
                plan = client.client().get("/api/v1/plans/" + id + "?wait=1");
                JsonNode logs = plan.path("logs");
                for (int i = logsPrinted; i < logs.size(); i++) {
                    JsonNode line = logs.get(i);
                    client.out().printf("%s [%s] %s%n", line.path("agent_id").asText(), line.path("level").asText(), line.path("body").asText());
                }
                logsPrinted = logs.size();
                plan.path("results").fields().forEachRemaining(e -> {
                    if (printed.add(e.getKey())) {
                        printResult(e.getKey(), e.getValue());
                    }
                });
                client.out().flush();
                if (!plan.path("status").asText().equals("RUNNING") || System.nanoTime() > deadline) {
                    break;
                }
            }
            boolean failed = !started.path("missing").isEmpty();
            if (failed) {
                err.println("error: not accepted agents, not targeted: " + text(started.path("missing")));
            }
            if (plan.path("status").asText().equals("RUNNING")) {
                err.println("error: no result within " + timeout + " s from " + text(plan.path("missing")) + " (plan " + id + ")");
                return 1;
            }
            int failures = 0;
            for (JsonNode result : plan.path("results")) {
                failures += result.path("error_code").asInt() != 0 ? 1 : 0;
            }
            err.println("plan " + id + ": " + (plan.path("results").size() - failures) + " succeeded, " + failures + " failed");
            return failed || failures > 0 ? 1 : 0;
        }

        private void printResult(String host, JsonNode result) {
            int code = result.path("error_code").asInt();
            if (client.output().format() == Output.Format.json) {
                client.out().println("{\"" + host + "\": " + result.path("document") + "}");
                return;
            }
            JsonNode body = result.path("document").path("Body");
            if (code == 0) {
                String text = body.isValueNode() ? body.asText() : Output.yaml(body).stripTrailing();
                client.out().println(host + ": OK");
                text.lines().forEach(line -> client.out().println("    " + line));
            } else {
                client.out().println(host + ": FAILED (" + code + ") " + result.path("message").asText());
                JsonNode info = body.path("AdditionalInfo");
                if (!info.isMissingNode() && !info.isNull()) {
                    Output.yaml(info).stripTrailing().lines().forEach(line -> client.out().println("    " + line));
                }
            }
        }
    }

    @Command(name = "get", description = "Show a plan: its hosts' results and log lines.")
    static final class Get implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ID") String id;

        @Override
        public Integer call() {
            JsonNode plan = client.client().get("/api/v1/plans/" + id);
            if (client.output().format() != Output.Format.table) {
                client.output().printObject(plan);
                return 0;
            }
            var out = client.out();
            out.printf("plan %s (%s): %s, sent by %s at %s to %s%n", plan.path("id").asText(), plan.path("name").asText(""),
                    plan.path("status").asText(), plan.path("created_by").asText(), plan.path("created_at").asText(),
                    text(plan.path("minions")));
            plan.path("results").fields().forEachRemaining(e -> out.printf("  %-30s %s%s%n", e.getKey(),
                    e.getValue().path("error_code").asInt() == 0 ? "OK" : "FAILED (" + e.getValue().path("error_code").asInt() + ")",
                    e.getValue().path("message").asText().isEmpty() ? "" : " " + e.getValue().path("message").asText()));
            for (JsonNode missing : plan.path("missing")) {
                out.printf("  %-30s waiting%n", missing.asText());
            }
            for (JsonNode line : plan.path("logs")) {
                out.printf("  %s %s [%s] %s%n", line.path("time").asText(), line.path("agent_id").asText(),
                        line.path("level").asText(), line.path("body").asText());
            }
            return 0;
        }
    }

    @Command(name = "list", description = "The newest plans.")
    static final class ListPlans implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Option(names = "--limit", description = "How many (default 100).") int limit = 100;

        @Override
        public Integer call() {
            JsonNode plans = client.client().get("/api/v1/plans?limit=" + limit);
            client.output().print(plans, plans, SUMMARY);
            return 0;
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> readPlan(Path file) {
        try {
            Object document = Json.yaml().readValue(Files.readString(file), Object.class);
            if (!(document instanceof Map<?, ?>)) {
                throw new CliException("" + file + " is not a plan: its top level must be a mapping (FormatVersion, Body, Scripts, Files…)");
            }
            return (Map<String, Object>) document;
        } catch (IOException e) {
            throw new CliException("cannot read the plan " + file + ": " + e.getMessage().lines().findFirst().orElse(""));
        }
    }

    static Map<String, Object> parameters(List<String> params) {
        Map<String, Object> parameters = new LinkedHashMap<>();
        for (String param : params) {
            int eq = param.indexOf('=');
            if (eq <= 0) {
                throw new CliException("--param " + param + " is not KEY=VALUE");
            }
            Object value;
            try {
                value = Json.yaml().readValue(param.substring(eq + 1), Object.class);
            } catch (IOException e) {
                value = param.substring(eq + 1);
            }
            parameters.put(param.substring(0, eq), value);
        }
        return parameters;
    }

    private static String text(JsonNode list) {
        List<String> items = new ArrayList<>();
        list.forEach(item -> items.add(item.asText()));
        return String.join(", ", items);
    }
}
