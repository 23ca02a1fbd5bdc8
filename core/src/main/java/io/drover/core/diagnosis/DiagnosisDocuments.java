package io.drover.core.diagnosis;

import io.drover.core.diagnosis.DocumentException.Problem;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads KubeDiag's documents ({@code apiVersion: diagnosis.kubediag.org/v1}, {@code kind}, {@code metadata.name},
 * {@code spec}) as YAML or JSON parsed into maps, so that a KubeDiag user brings theirs unchanged, and checks them with
 * KubeDiag's messages where it has them. Every problem is collected; a {@link DocumentException} lists them all.
 */
public final class DiagnosisDocuments {
    public static final int DEFAULT_TIMEOUT_SECONDS = 30;
    public static final int MAX_TIMEOUT_SECONDS = 86_400;
    private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?");
    private static final Pattern DNS = Pattern.compile("(?=.{1,253}$)([A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?)(\\.[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?)*\\.?");
    private static final Pattern IPV4 = Pattern.compile("((25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)");
    private static final Pattern FILE = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}");

    private DiagnosisDocuments() {
    }

    /** The document's kind, checked against the one expected. */
    static void expectKind(Map<?, ?> document, String kind, List<Problem> problems) {
        Object given = document.get("kind");
        if (given != null && !kind.equals(given)) {
            problems.add(new Problem("kind", "is " + given + ", expected " + kind));
        }
    }

    public static Operation operation(Map<?, ?> document) {
        List<Problem> problems = new ArrayList<>();
        expectKind(document, "Operation", problems);
        String name = name(document, problems);
        Map<?, ?> spec = map(document.get("spec"), "spec", problems);
        Map<?, ?> processor = map(spec.get("processor"), "spec.processor", problems);
        Map<?, ?> http = processor.get("httpServer") == null ? null : map(processor.get("httpServer"), "spec.processor.httpServer", problems);
        Map<?, ?> script = processor.get("scriptRunner") == null ? null : map(processor.get("scriptRunner"), "spec.processor.scriptRunner", problems);
        Map<?, ?> function = processor.get("function") == null ? null : map(processor.get("function"), "spec.processor.function", problems);
        Map<?, ?> action = processor.get("droverAction") == null ? null : map(processor.get("droverAction"), "spec.processor.droverAction", problems);
        int given = (http == null ? 0 : 1) + (script == null ? 0 : 1) + (function == null ? 0 : 1) + (action == null ? 0 : 1);
        if (given == 0) {
            problems.add(new Problem("spec.processor", "must specify http server, script runner or function"));
        } else if (given > 1) {
            problems.add(new Problem("spec.processor", "one and only one processor should be specified."));
        }
        Object timeoutValue = processor.get("timeoutSeconds") != null ? processor.get("timeoutSeconds") : spec.get("timeoutSeconds");
        int timeout = DEFAULT_TIMEOUT_SECONDS;
        if (timeoutValue != null) {
            if (!(timeoutValue instanceof Integer t) || t <= 0 || t > MAX_TIMEOUT_SECONDS) {
                problems.add(new Problem("spec.processor.timeoutSeconds", "must be greater than 0 (and at most " + MAX_TIMEOUT_SECONDS + ")"));
            } else {
                timeout = t;
            }
        }
        Operation.HttpServer httpServer = http == null ? null : httpServer(http, problems);
        Operation.ScriptRunner scriptRunner = script == null ? null : scriptRunner(script, problems);
        Operation.Function code = function == null ? null : function(function, problems);
        Operation.DroverAction droverAction = action == null ? null : droverAction(action, problems);
        if (!problems.isEmpty()) {
            throw new DocumentException(problems);
        }
        return new Operation(name, httpServer, scriptRunner, code, droverAction, timeout);
    }

    /** An OperationSet: its name and adjacency list (the graph is checked against the operations when it is applied). */
    public record OperationSet(String name, List<OperationGraph.Node> adjacencyList) {
        public OperationSet {
            adjacencyList = List.copyOf(adjacencyList);
        }
    }

    public static OperationSet operationSet(Map<?, ?> document) {
        List<Problem> problems = new ArrayList<>();
        expectKind(document, "OperationSet", problems);
        String name = name(document, problems);
        Map<?, ?> spec = map(document.get("spec"), "spec", problems);
        List<OperationGraph.Node> nodes = new ArrayList<>();
        if (!(spec.get("adjacencyList") instanceof List<?> list)) {
            problems.add(new Problem("spec.adjacencyList", "is required: a list of nodes (id, to, operation)"));
        } else if (list.size() > 10_000) {
            problems.add(new Problem("spec.adjacencyList", "has " + list.size() + " nodes, more than 10000"));
        } else {
            for (int i = 0; i < list.size(); i++) {
                String field = "spec.adjacencyList[" + i + "]";
                Map<?, ?> node = map(list.get(i), field, problems);
                Object id = node.get("id");
                if (id != null && !(id instanceof Integer)) {
                    problems.add(new Problem(field + ".id", "must be an integer"));
                }
                Object operation = node.get("operation");
                if (operation != null && !(operation instanceof String)) {
                    problems.add(new Problem(field + ".operation", "must be the name of an Operation"));
                }
                nodes.add(new OperationGraph.Node(id instanceof Integer n ? n : null, integers(node.get("to"), field + ".to", problems),
                        operation instanceof String s ? s : null, integers(node.get("dependences"), field + ".dependences", problems)));
            }
        }
        if (!problems.isEmpty()) {
            throw new DocumentException(problems);
        }
        return new OperationSet(name, nodes);
    }

    private static Operation.HttpServer httpServer(Map<?, ?> http, List<Problem> problems) {
        String address = text(http.get("address"), "spec.processor.httpServer.address", problems);
        if (address == null || address.isBlank()) {
            // KubeDiag's default is its own agent, which serves built-in processors (/processor/processCollector…);
            // Drover's agent serves none, so the call would reach nothing.
            problems.add(new Problem("spec.processor.httpServer.address", "is required: Drover's agent serves no built-in processors"
                    + " on 127.0.0.1:8090 as KubeDiag's does; give the address of the server that runs the processor"));
        } else if (!(IPV4.matcher(address).matches() || DNS.matcher(address).matches() || ipv6(address))) {
            problems.add(new Problem("spec.processor.httpServer.address", "must be a valid ip or dns address"));
        }
        int port = 8090;
        if (http.get("port") != null) {
            if (!(http.get("port") instanceof Integer p) || p <= 0 || p > 65_535) {
                problems.add(new Problem("spec.processor.httpServer.port", "must be greater than 0 and less equal to 65535"));
            } else {
                port = p;
            }
        }
        String scheme = text(http.get("scheme"), "spec.processor.httpServer.scheme", problems);
        if (scheme != null && !scheme.equals("http") && !scheme.equals("https")) {
            problems.add(new Problem("spec.processor.httpServer.scheme", "must be either http or https"));
        }
        String path = text(http.get("path"), "spec.processor.httpServer.path", problems);
        if (path != null && (path.length() > 2048 || path.chars().anyMatch(c -> c <= 0x20 || c == 0x7f))) {
            problems.add(new Problem("spec.processor.httpServer.path", "must be a URL path without blanks or control characters"));
        }
        return new Operation.HttpServer(address, port, path == null || path.isEmpty() ? "/" : path, scheme == null ? "http" : scheme);
    }

    private static final Map<String, Operation.Action> ACTIONS = Map.of("pluginStatus", Operation.Action.PLUGIN_STATUS,
            "restartPlugin", Operation.Action.RESTART_PLUGIN, "rerunSubscriptions", Operation.Action.RERUN_SUBSCRIPTIONS);

    private static Operation.DroverAction droverAction(Map<?, ?> action, List<Problem> problems) {
        String name = text(action.get("action"), "spec.processor.droverAction.action", problems);
        Operation.Action known = name == null ? null : ACTIONS.get(name);
        if (known == null) {
            problems.add(new Problem("spec.processor.droverAction.action", "must be pluginStatus, restartPlugin or rerunSubscriptions"));
        }
        String key = text(action.get("pluginKey"), "spec.processor.droverAction.pluginKey", problems);
        if (key != null && (key.isBlank() || key.length() > 253)) {
            problems.add(new Problem("spec.processor.droverAction.pluginKey", "must be a data key of 1 to 253 characters"));
        }
        return new Operation.DroverAction(known, key == null ? "plugin" : key);
    }

    /** The action's name as written in documents. */
    public static String actionName(Operation.Action action) {
        return ACTIONS.entrySet().stream().filter(e -> e.getValue() == action).findFirst().orElseThrow().getKey();
    }

    private static Operation.ScriptRunner scriptRunner(Map<?, ?> script, List<Problem> problems) {
        String text = text(script.get("script"), "spec.processor.scriptRunner.script", problems);
        if (text == null || text.isBlank()) {
            problems.add(new Problem("spec.processor.scriptRunner.script", "is required"));
        }
        List<String> argKeys = new ArrayList<>();
        if (script.get("argKeys") != null) {
            if (!(script.get("argKeys") instanceof List<?> keys) || keys.stream().anyMatch(k -> !(k instanceof String))) {
                problems.add(new Problem("spec.processor.scriptRunner.argKeys", "must be a list of strings"));
            } else {
                keys.forEach(k -> argKeys.add((String) k));
            }
        }
        String resultKey = text(script.get("operationResultKey"), "spec.processor.scriptRunner.operationResultKey", problems);
        return new Operation.ScriptRunner(text, argKeys, resultKey);
    }

    private static Operation.Function function(Map<?, ?> function, List<Problem> problems) {
        String runtime = text(function.get("runtime"), "spec.processor.function.runtime", problems);
        if (runtime == null || !runtime.equalsIgnoreCase("python3")) {
            problems.add(new Problem("spec.processor.function.runtime", "must be supported function runtime (Python3)"));
        }
        Map<String, String> code = new LinkedHashMap<>();
        if (!(function.get("codeSource") instanceof Map<?, ?> source) || source.isEmpty()) {
            problems.add(new Problem("spec.processor.function.codeSource", "is required: file name → code"));
        } else {
            source.forEach((file, text) -> {
                if (!(file instanceof String f) || !FILE.matcher(f).matches() || !(text instanceof String)) {
                    problems.add(new Problem("spec.processor.function.codeSource." + file, "must be a plain file name with its code as text"));
                } else {
                    code.put(f, (String) text);
                }
            });
            if (!code.containsKey("main.py") && !code.containsKey("function.py")) {
                problems.add(new Problem("spec.processor.function.codeSource", "needs main.py, or function.py with handler(context)"));
            }
        }
        return new Operation.Function(code, runtime);
    }

    static String name(Map<?, ?> document, List<Problem> problems) {
        Map<?, ?> metadata = map(document.get("metadata"), "metadata", problems);
        Object name = metadata.get("name");
        if (!(name instanceof String s) || !NAME.matcher(s).matches()) {
            problems.add(new Problem("metadata.name", "must be a lowercase RFC 1123 name (a-z, 0-9, '-', '.'; at most 253)"));
            return null;
        }
        return s;
    }

    static Map<?, ?> map(Object value, String field, List<Problem> problems) {
        if (value == null) {
            problems.add(new Problem(field, "is required"));
            return Map.of();
        }
        if (!(value instanceof Map<?, ?> map)) {
            problems.add(new Problem(field, "must be a mapping"));
            return Map.of();
        }
        return map;
    }

    static String text(Object value, String field, List<Problem> problems) {
        if (value == null) {
            return null;
        }
        if (!(value instanceof String s)) {
            problems.add(new Problem(field, "must be text"));
            return null;
        }
        return s;
    }

    private static List<Integer> integers(Object value, String field, List<Problem> problems) {
        if (value == null) {
            return List.of();
        }
        if (!(value instanceof List<?> list) || list.stream().anyMatch(v -> !(v instanceof Integer))) {
            problems.add(new Problem(field, "must be a list of node ids"));
            return List.of();
        }
        return list.stream().map(v -> (Integer) v).toList();
    }

    private static boolean ipv6(String address) {
        return address.contains(":") && address.matches("[0-9A-Fa-f:.]{2,45}");
    }
}
