package io.drover.cli;

import io.drover.model.plans.PlanStatus;
import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.model.plans.PlanRequest;
import io.drover.model.plans.PlanRun;
import io.drover.model.plans.PlanStarted;
import io.drover.model.plans.PlanSummary;
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
    static final List<Output.Column<PlanSummary>> SUMMARY = List.of(Output.Column.of("ID", PlanSummary::id),
            Output.Column.of("NAME", PlanSummary::name), Output.Column.of("STATUS", PlanSummary::status),
            Output.Column.of("HOSTS", PlanSummary::hosts), Output.Column.of("OK", PlanSummary::succeeded),
            Output.Column.of("FAILED", PlanSummary::failed), Output.Column.of("BY", PlanSummary::createdBy),
            Output.Column.of("AT", PlanSummary::createdAt));

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
            PlanStarted started = client.client().post("/api/v1/plans",
                    new PlanRequest(target, type.type(), readPlan(file), parameters(params), timeout), PlanStarted.class);
            String id = started.id();
            var err = client.spec.commandLine().getErr();
            err.println("plan " + id + " sent to " + orNone(started.minions()).size() + " agent(s) (job " + started.jid() + ")");
            err.flush();
            Set<String> printed = new HashSet<>();
            int logsPrinted = 0;
            long deadline = System.nanoTime() + timeout * 1_000_000_000L;
            PlanRun plan;
            while (true) {
                plan = client.client().get("/api/v1/plans/" + id + "?wait=1", PlanRun.class);
                List<PlanRun.LogLine> logs = orNone(plan.logs());
                for (int i = logsPrinted; i < logs.size(); i++) {
                    PlanRun.LogLine line = logs.get(i);
                    client.out().printf("%s [%s] %s%n", line.agentId(), line.level(), line.body());
                }
                logsPrinted = logs.size();
                results(plan).forEach((host, result) -> {
                    if (printed.add(host)) {
                        printResult(host, result);
                    }
                });
                client.out().flush();
                if (plan.status() != PlanStatus.RUNNING || System.nanoTime() > deadline) {
                    break;
                }
            }
            boolean failed = !orNone(started.missing()).isEmpty();
            if (failed) {
                err.println("error: not accepted agents, not targeted: " + String.join(", ", started.missing()));
            }
            if (plan.status() == PlanStatus.RUNNING) {
                err.println("error: no result within " + timeout + " s from " + String.join(", ", orNone(plan.missing()))
                        + " (plan " + id + ")");
                return 1;
            }
            int failures = 0;
            for (PlanRun.HostResult result : results(plan).values()) {
                failures += result.errorCode() != 0 ? 1 : 0;
            }
            err.println("plan " + id + ": " + (results(plan).size() - failures) + " succeeded, " + failures + " failed");
            return failed || failures > 0 ? 1 : 0;
        }

        private void printResult(String host, PlanRun.HostResult result) {
            int code = result.errorCode();
            if (client.output().format() == Output.Format.json) {
                client.out().println("{\"" + host + "\": " + Output.oneLine(result.document()) + "}");
                return;
            }
            // the result document is the unified agent's (Murano's) format: its keys are that format's
            Object body = result.document() instanceof Map<?, ?> document ? document.get("Body") : null;
            if (code == 0) {
                String text = body instanceof Map<?, ?> || body instanceof List<?> ? Output.yaml(Output.tree(body)).stripTrailing()
                        : String.valueOf(body);
                client.out().println(host + ": OK");
                text.lines().forEach(line -> client.out().println("    " + line));
            } else {
                client.out().println(host + ": FAILED (" + code + ") " + (result.message() == null ? "" : result.message()));
                Object info = body instanceof Map<?, ?> map ? map.get("AdditionalInfo") : null;
                if (info != null) {
                    Output.yaml(Output.tree(info)).stripTrailing().lines().forEach(line -> client.out().println("    " + line));
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
            PlanRun plan = client.client().get("/api/v1/plans/" + id, PlanRun.class);
            if (client.output().format() != Output.Format.table) {
                client.output().printObject(plan);
                return 0;
            }
            var out = client.out();
            out.printf("plan %s (%s): %s, sent by %s at %s to %s%n", plan.id(), plan.name() == null ? "" : plan.name(),
                    Output.text(plan.status()), plan.createdBy(), Output.text(plan.createdAt()), String.join(", ", orNone(plan.minions())));
            results(plan).forEach((host, result) -> out.printf("  %-30s %s%s%n", host,
                    result.errorCode() == 0 ? "OK" : "FAILED (" + result.errorCode() + ")",
                    result.message() == null || result.message().isEmpty() ? "" : " " + result.message()));
            for (String missing : orNone(plan.missing())) {
                out.printf("  %-30s waiting%n", missing);
            }
            for (PlanRun.LogLine line : orNone(plan.logs())) {
                out.printf("  %s %s [%s] %s%n", Output.text(line.time()), line.agentId(), line.level(), line.body());
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
            List<PlanSummary> plans = client.client().get("/api/v1/plans?limit=" + limit, new TypeReference<>() { });
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

    private static <T> List<T> orNone(List<T> list) {
        return list == null ? List.of() : list;
    }

    private static Map<String, PlanRun.HostResult> results(PlanRun plan) {
        return plan.results() == null ? Map.of() : plan.results();
    }
}
