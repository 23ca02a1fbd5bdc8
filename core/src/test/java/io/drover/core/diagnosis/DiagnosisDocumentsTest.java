package io.drover.core.diagnosis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.drover.core.testing.ReferenceData;
import io.drover.model.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** KubeDiag's documents read as a KubeDiag user writes them, and refused with KubeDiag's messages. */
class DiagnosisDocumentsTest {
    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> documents(String kind) throws Exception {
        List<Map<String, Object>> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(ReferenceData.dir("kubediag"))) {
            for (Path file : files.filter(p -> p.toString().endsWith(".yaml") && !p.toString().contains("expected")).sorted().toList()) {
                try (var parser = Json.yaml().getFactory().createParser(file.toFile())) {
                    var docs = Json.yaml().readValues(parser, Map.class);
                    while (docs.hasNext()) {
                        Map<String, Object> doc = docs.next();
                        if (doc != null && kind.equals(doc.get("kind"))) {
                            found.add(doc);
                        }
                    }
                }
            }
        }
        return found;
    }

    @Test
    void everyReferenceOperationAndOperationSetIsRead() throws Exception {
        List<Map<String, Object>> operations = documents("Operation");
        assertThat(operations).hasSize(3);
        for (Map<String, Object> document : operations) {
            Operation operation = DiagnosisDocuments.operation(document);
            assertThat(operation.name()).isEqualTo(((Map<?, ?>) document.get("metadata")).get("name"));
        }
        Operation du = DiagnosisDocuments.operation(operations.stream()
                .filter(d -> ((Map<?, ?>) d.get("metadata")).get("name").equals("disk-usage-script")).findFirst().orElseThrow());
        assertThat(du.scriptRunner().argKeys()).containsExactly("param.operation.disk_usage.path");
        assertThat(du.scriptRunner().operationResultKey()).isEqualTo("disk_usage");
        assertThat(du.timeoutSeconds()).isEqualTo(60);
        List<Map<String, Object>> sets = documents("OperationSet");
        assertThat(sets).hasSizeGreaterThanOrEqualTo(14);
        for (Map<String, Object> document : sets) {
            DiagnosisDocuments.OperationSet set = DiagnosisDocuments.operationSet(document);
            java.util.Set<String> names = new java.util.HashSet<>();
            set.adjacencyList().forEach(n -> {
                if (n.operation() != null) {
                    names.add(n.operation());
                }
            });
            assertThat(OperationGraph.paths(set.adjacencyList(), names, 1000)).as(set.name()).isNotEmpty();
        }
    }

    static Map<String, Object> operation(Map<String, Object> processor) {
        return Map.of("apiVersion", "diagnosis.kubediag.org/v1", "kind", "Operation", "metadata", Map.of("name", "op-1"),
                "spec", Map.of("processor", processor));
    }

    static Stream<Arguments> refused() {
        return Stream.of(
                Arguments.of(operation(Map.of()), "spec.processor: must specify http server, script runner or function"),
                Arguments.of(operation(Map.of("httpServer", Map.of(), "scriptRunner", Map.of("script", "x"))),
                        "spec.processor: one and only one processor should be specified."),
                Arguments.of(operation(Map.of("httpServer", Map.of("address", "not an address!"))),
                        "spec.processor.httpServer.address: must be a valid ip or dns address"),
                Arguments.of(operation(Map.of("httpServer", Map.of("path", "/processor/processCollector"))),
                        "spec.processor.httpServer.address: is required: Drover's agent serves no built-in processors on 127.0.0.1:8090"),
                Arguments.of(operation(Map.of("httpServer", Map.of("address", " ", "port", 8090))),
                        "spec.processor.httpServer.address: is required"),
                Arguments.of(operation(Map.of("httpServer", Map.of("address", "127.0.0.1", "port", 70000))),
                        "spec.processor.httpServer.port: must be greater than 0 and less equal to 65535"),
                Arguments.of(operation(Map.of("httpServer", Map.of("address", "10.0.0.1", "scheme", "ftp"))), "spec.processor.httpServer.scheme: must be either http or https"),
                Arguments.of(operation(Map.of("function", Map.of("runtime", "golang-http", "codeSource", Map.of("main.py", "")))),
                        "spec.processor.function.runtime: must be supported function runtime (Python3)"),
                Arguments.of(operation(Map.of("function", Map.of("runtime", "Python3", "codeSource", Map.of("../main.py", "")))),
                        "spec.processor.function.codeSource.../main.py: must be a plain file name with its code as text"),
                Arguments.of(operation(Map.of("scriptRunner", Map.of("script", " "))), "spec.processor.scriptRunner.script: is required"),
                Arguments.of(operation(Map.of("scriptRunner", Map.of("script", "x", "argKeys", List.of(1)))),
                        "spec.processor.scriptRunner.argKeys: must be a list of strings"),
                Arguments.of(operation(Map.of("scriptRunner", Map.of("script", "x"), "timeoutSeconds", 0)),
                        "spec.processor.timeoutSeconds: must be greater than 0 (and at most 86400)"),
                Arguments.of(Map.of("kind", "Operation", "metadata", Map.of("name", "Bad_Name"), "spec", Map.of("processor",
                        Map.of("scriptRunner", Map.of("script", "x")))), "metadata.name: must be a lowercase RFC 1123 name"),
                Arguments.of(Map.of("kind", "Trigger", "metadata", Map.of("name", "x"), "spec", Map.of("processor",
                        Map.of("scriptRunner", Map.of("script", "x")))), "kind: is Trigger, expected Operation"),
                Arguments.of(Map.of("metadata", Map.of("name", "x")), "spec: is required"));
    }

    @ParameterizedTest
    @MethodSource("refused")
    void invalidOperationsNameTheField(Map<String, Object> document, String message) {
        assertThatThrownBy(() -> DiagnosisDocuments.operation(document)).isInstanceOf(DocumentException.class)
                .hasMessageContaining(message);
    }

    @Test
    void invalidOperationSetsNameTheField() {
        assertThatThrownBy(() -> DiagnosisDocuments.operationSet(Map.of("metadata", Map.of("name", "s"), "spec", Map.of())))
                .hasMessage("spec.adjacencyList: is required: a list of nodes (id, to, operation)");
        assertThatThrownBy(() -> DiagnosisDocuments.operationSet(Map.of("metadata", Map.of("name", "s"), "spec",
                Map.of("adjacencyList", List.of(Map.of("id", "zero", "to", List.of("1")), Map.of("operation", 5))))))
                .hasMessage("spec.adjacencyList[0].id: must be an integer; spec.adjacencyList[0].to: must be a list of node ids; "
                        + "spec.adjacencyList[1].operation: must be the name of an Operation");
    }

    @Test
    void defaultsAreKubediags() {
        Operation http = DiagnosisDocuments.operation(operation(Map.of("httpServer", Map.of("address", "127.0.0.1"))));
        assertThat(http.httpServer()).isEqualTo(new Operation.HttpServer("127.0.0.1", 8090, "/", "http"));
        assertThat(http.timeoutSeconds()).isEqualTo(30);
        assertThat(http.processor()).isEqualTo("httpServer");
    }

    @Test
    void droverActionsAreDroversOwnProcessor() {
        Operation restart = DiagnosisDocuments.operation(operation(Map.of("droverAction", Map.of("action", "restartPlugin"))));
        assertThat(restart.processor()).isEqualTo("droverAction");
        assertThat(restart.droverAction()).isEqualTo(new Operation.DroverAction(Operation.Action.RESTART_PLUGIN, "plugin"));
        assertThat(DiagnosisDocuments.operation(operation(Map.of("droverAction", Map.of("action", "pluginStatus", "pluginKey", "name"))))
                .droverAction()).isEqualTo(new Operation.DroverAction(Operation.Action.PLUGIN_STATUS, "name"));
        assertThat(DiagnosisDocuments.actionName(Operation.Action.RERUN_SUBSCRIPTIONS)).isEqualTo("rerunSubscriptions");
        assertThatThrownBy(() -> DiagnosisDocuments.operation(operation(Map.of("droverAction", Map.of("action", "reboot")))))
                .hasMessage("spec.processor.droverAction.action: must be pluginStatus, restartPlugin or rerunSubscriptions");
        assertThatThrownBy(() -> DiagnosisDocuments.operation(operation(Map.of("droverAction", Map.of("action", "pluginStatus", "pluginKey", " ")))))
                .hasMessage("spec.processor.droverAction.pluginKey: must be a data key of 1 to 253 characters");
        assertThatThrownBy(() -> DiagnosisDocuments.operation(operation(Map.of("droverAction", Map.of("action", "pluginStatus"),
                "scriptRunner", Map.of("script", "true"))))).hasMessage("spec.processor: one and only one processor should be specified.");
    }
}
