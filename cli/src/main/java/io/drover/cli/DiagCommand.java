package io.drover.cli;

import io.drover.model.diagnosis.DiagnosisPhase;
import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.model.diagnosis.DiagnosesStarted;
import io.drover.model.diagnosis.DiagnosisInfo;
import io.drover.model.diagnosis.DiagnosisObject;
import io.drover.model.diagnosis.KubeDocument;
import io.drover.model.Json;
import java.io.IOException;
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
    static final List<Output.Column<DiagnosisObject.Summary>> OBJECTS = List.of(
            Output.Column.of("NAME", DiagnosisObject.Summary::name), Output.Column.of("BUILTIN", DiagnosisObject.Summary::builtin),
            Output.Column.of("DETAIL", DiagnosisObject.Summary::detail), Output.Column.of("UPDATED", DiagnosisObject.Summary::updatedAt));
    static final List<Output.Column<DiagnosisInfo.Summary>> DIAGNOSES = List.of(Output.Column.of("ID", DiagnosisInfo.Summary::id),
            Output.Column.of("NAME", DiagnosisInfo.Summary::name), Output.Column.of("SET", DiagnosisInfo.Summary::operationSet),
            Output.Column.of("HOST", DiagnosisInfo.Summary::hostName), Output.Column.of("PHASE", DiagnosisInfo.Summary::phase),
            Output.Column.of("SOURCE", DiagnosisInfo.Summary::source), Output.Column.of("UPDATED", DiagnosisInfo.Summary::updatedAt));

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
                        DiagnosesStarted started = client.client().post("/api/v1/diagnoses", document, DiagnosesStarted.class);
                        for (DiagnosesStarted.StartedDiagnosis d : orNone(started.diagnoses())) {
                            client.out().println("diagnosis " + d.id() + " started on " + d.hostName());
                        }
                    } else {
                        client.client().put("/api/v1/diagnosis/" + KINDS.get(kind) + "/" + segment(name), document,
                                DiagnosisObject.class);
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
            List<DiagnosisObject.Summary> list = client.client().get("/api/v1/diagnosis/" + collection(kind),
                    new TypeReference<>() { });
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
            DiagnosisObject object = client.client().get("/api/v1/diagnosis/" + collection(kind) + "/" + segment(name),
                    DiagnosisObject.class);
            if (client.output().format() != Output.Format.table) {
                client.output().printObject(object);
                return 0;
            }
            client.out().print(Output.yaml(Output.tree(object.document())));
            if (object.paths() != null) {
                client.out().println("# paths (node ids, tried in this order):");
                object.paths().forEach(p -> client.out().println("#   " + Output.oneLine(p)));
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
            DiagnosisInfo d = client.client().postNoBody("/api/v1/diagnoses/" + diagnosisId(id) + "/cancel", DiagnosisInfo.class);
            if (client.output().format() != Output.Format.table) {
                client.output().printObject(d);
                return 0;
            }
            List<DiagnosisInfo.Condition> conditions = orNone(d.conditions());
            DiagnosisInfo.Condition last = conditions.isEmpty() ? null : conditions.get(conditions.size() - 1);
            client.out().println("diagnosis " + id + ": " + Output.text(d.phase()) + (last == null ? "" : " (" + last.message() + ")"));
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
            // KubeDiag's Diagnosis document: metadata and spec keep that format's camelCase keys
            KubeDocument document = new KubeDocument(null, "Diagnosis", Map.of("name", name == null ? set : name),
                    Map.of("operationSet", set, "hosts", hosts, "parameters", parameters));
            DiagnosesStarted started = client.client().post("/api/v1/diagnoses", document, DiagnosesStarted.class);
            List<String> ids = new ArrayList<>();
            for (DiagnosesStarted.StartedDiagnosis d : orNone(started.diagnoses())) {
                ids.add(Long.toString(d.id()));
                client.out().println("diagnosis " + d.id() + " started on " + d.hostName());
            }
            client.out().flush();
            if (!await) {
                return 0;
            }
            int failed = 0;
            for (String id : ids) {
                DiagnosisInfo d = Status.follow(client, id);
                failed += d.phase() == DiagnosisPhase.SUCCEEDED ? 0 : 1;
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
            DiagnosisInfo d = await ? follow(client, id) : client.client().get("/api/v1/diagnoses/" + segment(id), DiagnosisInfo.class);
            if (!await) {
                if (client.output().format() != Output.Format.table) {
                    client.output().printObject(d);
                    return 0;
                }
                printNodes(client, id, orNone(d.nodes()), 0);
                print(client, d);
            }
            return d.phase() == DiagnosisPhase.SUCCEEDED || !await ? 0 : 1;
        }

        /** Prints each node as it finishes, then the whole diagnosis. */
        static DiagnosisInfo follow(ClientOptions client, String id) {
            int printed = 0;
            DiagnosisInfo d;
            while (true) {
                d = client.client().get("/api/v1/diagnoses/" + segment(id) + "?wait=2", DiagnosisInfo.class);
                printed = printNodes(client, id, orNone(d.nodes()), printed);
                client.out().flush();
                if (d.phase() != null && d.phase().ended()) {
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
        static int printNodes(ClientOptions client, String id, List<DiagnosisInfo.NodeRun> nodes, int from) {
            for (int i = from; i < nodes.size(); i++) {
                DiagnosisInfo.NodeRun n = nodes.get(i);
                client.out().printf("%s: path %d node %d %s %s%s%n", id, n.pathIndex() + 1, n.node(),
                        n.operation(), n.succeeded() ? "ok" : "FAILED", n.error() != null ? ": " + n.error() : "");
                n.results().forEach((key, value) -> client.out().printf("    %s = %s%n", key, brief(value == null ? "null" : value)));
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

        static void print(ClientOptions client, DiagnosisInfo d) {
            var out = client.out();
            out.printf("diagnosis %s (%s): %s on %s with %s, from %s%n", d.id(), d.name(), Output.text(d.phase()), d.hostName(),
                    d.operationSet(), d.source());
            out.println("  paths:          " + json(d.paths()));
            out.println("  failed paths:   " + json(d.failedPaths()));
            out.println("  succeeded path: " + json(d.succeededPath()));
            for (DiagnosisInfo.Condition c : orNone(d.conditions())) {
                out.printf("  %s %s/%s: %s%n", Output.text(c.time()), c.type(), c.reason(), c.message());
            }
            out.println("  results:");
            (d.operationResults() == null ? Map.<String, String>of() : d.operationResults()).forEach((key, result) -> {
                String value = result == null ? "null" : result;
                if (value.contains("\n")) {
                    out.println("    " + key + ": |");
                    value.lines().forEach(l -> out.println("      " + l));
                } else {
                    out.println("    " + key + ": " + value);
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
            List<DiagnosisInfo.Summary> list = client.client().get("/api/v1/diagnoses?limit=" + limit
                    + (phase == null ? "" : "&phase=" + segment(phase)), new TypeReference<>() { });
            client.output().print(list, list, DIAGNOSES);
            return 0;
        }
    }

    /** A list as one line of JSON, as the text output shows paths; empty when there is none. */
    private static String json(Object list) {
        return list == null ? "" : Output.oneLine(list);
    }

    private static <T> List<T> orNone(List<T> list) {
        return list == null ? List.of() : list;
    }
}
