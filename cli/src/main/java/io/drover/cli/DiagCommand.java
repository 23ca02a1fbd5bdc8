package io.drover.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.model.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code drover diag …}: the diagnosis library (KubeDiag's documents) and diagnoses of hosts. */
@Command(name = "diag", description = "Diagnosis: apply KubeDiag-style Operations, OperationSets and Triggers; diagnose hosts; "
        + "follow a diagnosis along its paths.",
        subcommands = {DiagCommand.Apply.class, DiagCommand.ListObjects.class, DiagCommand.Get.class, DiagCommand.Delete.class,
                DiagCommand.Cancel.class, DiagCommand.Run.class, DiagCommand.Status.class, DiagCommand.ListDiagnoses.class})
public final class DiagCommand {
    static final Map<String, String> KINDS = Map.of("Operation", "operations", "OperationSet", "operation-sets", "Trigger", "triggers");
    static final List<Output.Column> OBJECTS = List.of(Output.Column.of("NAME", "name"), Output.Column.of("BUILTIN", "builtin"),
            Output.Column.of("DETAIL", "detail"), Output.Column.of("UPDATED", "updated_at"));
    static final List<Output.Column> DIAGNOSES = List.of(Output.Column.of("ID", "id"), Output.Column.of("NAME", "name"),
            Output.Column.of("SET", "operation_set"), Output.Column.of("HOST", "host_name"), Output.Column.of("PHASE", "phase"),
            Output.Column.of("SOURCE", "source"), Output.Column.of("UPDATED", "updated_at"));

    /** A name as one URL path segment: a name such as {@code ../tokens} cannot reach another route. */
    static String segment(String name) {
        return java.net.URLEncoder.encode(name, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** {@code operations}, {@code operation-sets} or {@code triggers}, from any common spelling of the kind. */
    static String collection(String kind) {
        String k = kind.toLowerCase(java.util.Locale.ROOT).replace("-", "").replace("_", "");
        return switch (k) {
            case "operation", "operations", "op", "ops" -> "operations";
            case "operationset", "operationsets", "set", "sets" -> "operation-sets";
            case "trigger", "triggers" -> "triggers";
            default -> throw new CliException("'" + kind + "' is not a kind: operations, operation-sets or triggers");
        };
    }

    @Command(name = "apply", description = "Apply every document of FILE (YAML, '---' between documents): Operations, "
            + "OperationSets and Triggers are created or replaced (operations first), a Diagnosis is started.")
    static final class Apply implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Option(names = {"-f", "--file"}, required = true, paramLabel = "FILE", description = "The documents.") Path file;

        @Override
        public Integer call() {
            List<Map<String, Object>> documents = read(file);
            for (String kind : List.of("Operation", "OperationSet", "Trigger", "Diagnosis")) {
                for (Map<String, Object> document : documents) {
                    if (!kind.equals(document.get("kind"))) {
                        continue;
                    }
                    String name = document.get("metadata") instanceof Map<?, ?> m ? String.valueOf(m.get("name")) : "";
                    if (kind.equals("Diagnosis")) {
                        JsonNode started = client.client().post("/api/v1/diagnoses", document);
                        for (JsonNode d : started.path("diagnoses")) {
                            client.out().println("diagnosis " + d.path("id").asText() + " started on " + d.path("host_name").asText());
                        }
                    } else {
                        client.client().put("/api/v1/diagnosis/" + KINDS.get(kind) + "/" + segment(name), document);
                        client.out().println(kind + " " + name + " applied");
                    }
                }
            }
            client.out().flush();
            return 0;
        }

        @SuppressWarnings("unchecked")
        static List<Map<String, Object>> read(Path file) {
            List<Map<String, Object>> documents = new ArrayList<>();
            try (var parser = Json.yaml().getFactory().createParser(file.toFile())) {
                var values = Json.yaml().readValues(parser, Object.class);
                int index = 0;
                while (values.hasNext()) {
                    Object document = values.next();
                    index++;
                    if (document == null) {
                        continue;
                    }
                    if (!(document instanceof Map<?, ?> map) || !KINDS.containsKey(map.get("kind")) && !"Diagnosis".equals(map.get("kind"))) {
                        throw new CliException(file + ": document " + index + " is not an Operation, OperationSet, Trigger or Diagnosis "
                                + "(its kind says what it is)");
                    }
                    documents.add((Map<String, Object>) map);
                }
            } catch (IOException | RuntimeException e) {
                if (e instanceof CliException cli) {
                    throw cli;
                }
                throw new CliException("cannot read " + file + ": " + String.valueOf(e.getMessage()).lines().findFirst().orElse(""));
            }
            if (documents.isEmpty()) {
                throw new CliException(file + " holds no document");
            }
            return documents;
        }
    }

    @Command(name = "list", description = "List the library's KIND: operations, operation-sets or triggers.")
    static final class ListObjects implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "KIND") String kind;

        @Override
        public Integer call() {
            JsonNode list = client.client().get("/api/v1/diagnosis/" + collection(kind));
            client.output().print(list, list, OBJECTS);
            return 0;
        }
    }

    @Command(name = "get", description = "Show one Operation, OperationSet (with its paths) or Trigger as YAML.")
    static final class Get implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(index = "0", paramLabel = "KIND") String kind;
        @Parameters(index = "1", paramLabel = "NAME") String name;

        @Override
        public Integer call() {
            JsonNode object = client.client().get("/api/v1/diagnosis/" + collection(kind) + "/" + segment(name));
            if (client.output().format() != Output.Format.table) {
                client.output().printObject(object);
                return 0;
            }
            client.out().print(Output.yaml(object.path("document")));
            if (object.path("paths").isArray()) {
                client.out().println("# paths (node ids, tried in this order):");
                object.path("paths").forEach(p -> client.out().println("#   " + p));
            }
            client.out().flush();
            return 0;
        }
    }

    @Command(name = "delete", description = "Delete a diagnosis that has ended (ID; a running one: cancel it first), or one "
            + "Operation, OperationSet or Trigger of the library (KIND NAME; refused while something uses it).")
    static final class Delete implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(index = "0", paramLabel = "ID|KIND", description = "A diagnosis's id, or a kind: operations, operation-sets or triggers.")
        String first;
        @Parameters(index = "1", arity = "0..1", paramLabel = "NAME", description = "The library object's name (with KIND).") String name;

        @Override
        public Integer call() {
            if (name == null) {
                client.client().delete("/api/v1/diagnoses/" + diagnosisId(first));
                client.out().println("diagnosis " + first + " deleted");
            } else {
                client.client().delete("/api/v1/diagnosis/" + collection(first) + "/" + segment(name));
                client.out().println(name + " deleted");
            }
            client.out().flush();
            return 0;
        }
    }

    /** A diagnosis's id as typed: digits only, so that nothing else reaches the URL. */
    static String diagnosisId(String id) {
        if (!id.matches("[0-9]{1,18}")) {
            throw new CliException("'" + id + "' is not a diagnosis id (drover diag ls); a library object is deleted with KIND NAME");
        }
        return id;
    }

    @Command(name = "cancel", description = "Cancel a running diagnosis: no further node runs and the running operation's "
            + "process group is killed on the agent; the diagnosis ends Cancelled (kept until deleted or past the retention).")
    static final class Cancel implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ID") String id;

        @Override
        public Integer call() {
            JsonNode d = client.client().post("/api/v1/diagnoses/" + diagnosisId(id) + "/cancel", Map.of());
            if (client.output().format() != Output.Format.table) {
                client.output().printObject(d);
                return 0;
            }
            JsonNode conditions = d.path("conditions");
            JsonNode last = conditions.isEmpty() ? null : conditions.get(conditions.size() - 1);
            client.out().println("diagnosis " + id + ": " + d.path("phase").asText()
                    + (last == null ? "" : " (" + last.path("message").asText() + ")"));
            client.out().flush();
            return 0;
        }
    }

    @Command(name = "run", description = "Diagnose HOST… (names, inner addresses or ids) with the operation set SET; with --wait, "
            + "follow each diagnosis to its end and exit 1 unless all succeeded.")
    static final class Run implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(index = "0", paramLabel = "SET", description = "The OperationSet, e.g. plugin-down or host-overview.") String set;
        @Parameters(index = "1..*", arity = "1..*", paramLabel = "HOST") List<String> hosts;
        @Option(names = {"-p", "--param"}, paramLabel = "KEY=VALUE", description = "A parameter (repeatable), e.g. plugin=exporter.")
        List<String> params = List.of();
        @Option(names = "--name", description = "The diagnosis's name (default: the set's).") String name;
        @Option(names = "--wait", description = "Follow until every diagnosis ends.") boolean await;

        @Override
        public Integer call() {
            Map<String, Object> parameters = new LinkedHashMap<>();
            PlanCommand.parameters(params).forEach((k, v) -> parameters.put(k, String.valueOf(v)));
            Map<String, Object> document = Map.of("kind", "Diagnosis", "metadata", Map.of("name", name == null ? set : name),
                    "spec", Map.of("operationSet", set, "hosts", hosts, "parameters", parameters));
            JsonNode started = client.client().post("/api/v1/diagnoses", document);
            List<String> ids = new ArrayList<>();
            for (JsonNode d : started.path("diagnoses")) {
                ids.add(d.path("id").asText());
                client.out().println("diagnosis " + d.path("id").asText() + " started on " + d.path("host_name").asText());
            }
            client.out().flush();
            if (!await) {
                return 0;
            }
            int failed = 0;
            for (String id : ids) {
                JsonNode d = Status.follow(client, id);
                failed += d.path("phase").asText().equals("Succeeded") ? 0 : 1;
            }
            return failed == 0 ? 0 : 1;
        }
    }

    @Command(name = "status", description = "Show a diagnosis: phase, the nodes run on each path, conditions and results; "
            + "with --wait, follow it to its end (exit 1 unless it succeeded).")
    static final class Status implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ID") String id;
        @Option(names = "--wait", description = "Follow until it ends.") boolean await;

        @Override
        public Integer call() {
            JsonNode d = await ? follow(client, id) : client.client().get("/api/v1/diagnoses/" + segment(id));
            if (!await) {
                if (client.output().format() != Output.Format.table) {
                    client.output().printObject(d);
                    return 0;
                }
                printNodes(client, id, d.path("nodes"), 0);
                print(client, d);
            }
            return d.path("phase").asText().equals("Succeeded") || !await ? 0 : 1;
        }

        /** Prints each node as it finishes, then the whole diagnosis. */
        static JsonNode follow(ClientOptions client, String id) {
            int printed = 0;
            JsonNode d;
            while (true) {
                d = client.client().get("/api/v1/diagnoses/" + segment(id) + "?wait=2");
                printed = printNodes(client, id, d.path("nodes"), printed);
                client.out().flush();
                if (d.path("phase").asText().matches("Succeeded|Failed|Cancelled")) {
                    break;
                }
            }
            print(client, d);
            return d;
        }

        /**
         * Prints the nodes run from index {@code from} on, one line each with that run's own results below it (a value's
         * first line, shortened); answers how many there are.
         */
        static int printNodes(ClientOptions client, String id, JsonNode nodes, int from) {
            for (int i = from; i < nodes.size(); i++) {
                JsonNode n = nodes.get(i);
                client.out().printf("%s: path %d node %d %s %s%s%n", id, n.path("path_index").asInt() + 1, n.path("node").asInt(),
                        n.path("operation").asText(), n.path("succeeded").asBoolean() ? "ok" : "FAILED",
                        n.path("error").isTextual() ? ": " + n.path("error").asText() : "");
                n.path("results").fields().forEachRemaining(e -> client.out().printf("    %s = %s%n", e.getKey(), brief(e.getValue().asText())));
            }
            return nodes.size();
        }

        /** A value's first line up to 100 characters, saying how much more there is. */
        static String brief(String value) {
            String first = value.lines().findFirst().orElse("");
            String shown = first.length() > 100 ? first.substring(0, 100) : first;
            long lines = value.lines().count();
            if (shown.length() == value.length() || (lines <= 1 && shown.length() == value.stripTrailing().length())) {
                return shown;
            }
            return shown + " … (" + value.length() + " characters" + (lines > 1 ? ", " + lines + " lines" : "") + ")";
        }

        static void print(ClientOptions client, JsonNode d) {
            var out = client.out();
            out.printf("diagnosis %s (%s): %s on %s with %s, from %s%n", d.path("id").asText(), d.path("name").asText(),
                    d.path("phase").asText(), d.path("host_name").asText(), d.path("operation_set").asText(), d.path("source").asText());
            out.println("  paths:          " + d.path("paths"));
            out.println("  failed paths:   " + d.path("failed_paths"));
            out.println("  succeeded path: " + d.path("succeeded_path"));
            for (JsonNode c : d.path("conditions")) {
                out.printf("  %s %s/%s: %s%n", c.path("time").asText(), c.path("type").asText(), c.path("reason").asText(),
                        c.path("message").asText());
            }
            out.println("  results:");
            d.path("operation_results").fields().forEachRemaining(e -> {
                String value = e.getValue().asText();
                if (value.contains("\n")) {
                    out.println("    " + e.getKey() + ": |");
                    value.lines().forEach(l -> out.println("      " + l));
                } else {
                    out.println("    " + e.getKey() + ": " + value);
                }
            });
            out.flush();
        }
    }

    @Command(name = "ls", description = "The newest diagnoses.")
    static final class ListDiagnoses implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Option(names = "--phase", description = "Only this phase: Pending, Running, Succeeded, Failed or Cancelled.") String phase;
        @Option(names = "--limit", description = "How many (default 100).") int limit = 100;

        @Override
        public Integer call() {
            JsonNode list = client.client().get("/api/v1/diagnoses?limit=" + limit + (phase == null ? "" : "&phase=" + segment(phase)));
            client.output().print(list, list, DIAGNOSES);
            return 0;
        }
    }
}
