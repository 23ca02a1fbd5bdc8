package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.server.testing.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What flows between the nodes of a diagnosis, with a real server and a real agent: a collector's 1 MiB result reaches
 * the next function whole (on standard input, not the command line, where Linux caps one argument at 128 KiB), an
 * argKey too long for the command line is refused by name before the script runs, each node's results are kept on its
 * run (two nodes writing one key keep both), and an httpServer Operation without an address is refused when applied.
 */
class DiagnosisDataFlowTest {
    static final String INVENTORY = """
            businesses: [{bk_biz_id: 2, bk_biz_name: shop}]
            sets: [{bk_set_id: 10, bk_biz_id: 2, bk_set_name: web}]
            modules: [{bk_module_id: 20, bk_set_id: 10, bk_module_name: nginx}]
            hosts:
              - {bk_host_id: 1, bk_biz_id: 2, bk_host_innerip: 10.9.0.1, bk_host_name: my-node, bk_module_ids: [20]}
            """;

    static final String DOCUMENTS = """
            apiVersion: diagnosis.kubediag.org/v1
            kind: Operation
            metadata: {name: big-collector}
            spec:
              processor:
                scriptRunner:
                  operationResultKey: collector
                  script: |
                    head -c 1048576 /dev/zero | tr '\\0' x
            ---
            apiVersion: diagnosis.kubediag.org/v1
            kind: Operation
            metadata: {name: size-function}
            spec:
              processor:
                function:
                  runtime: python3
                  codeSource:
                    function.py: |
                      import hashlib
                      def handler(context):
                          value = context["operation.collector.output"]
                          return {"seen.bytes": len(value), "seen.sha256": hashlib.sha256(value.encode()).hexdigest()}
            ---
            apiVersion: diagnosis.kubediag.org/v1
            kind: Operation
            metadata: {name: say-a}
            spec: {processor: {scriptRunner: {operationResultKey: same, script: "echo a"}}}
            ---
            apiVersion: diagnosis.kubediag.org/v1
            kind: Operation
            metadata: {name: say-b}
            spec: {processor: {scriptRunner: {operationResultKey: same, script: "echo b"}}}
            ---
            apiVersion: diagnosis.kubediag.org/v1
            kind: Operation
            metadata: {name: argv-consumer}
            spec:
              processor:
                scriptRunner:
                  argKeys: [operation.collector.output]
                  operationResultKey: consumer
                  script: |
                    touch "%s"
            ---
            apiVersion: diagnosis.kubediag.org/v1
            kind: OperationSet
            metadata: {name: big-data}
            spec:
              adjacencyList:
                - {id: 0, to: [1]}
                - {id: 1, operation: big-collector, to: [2]}
                - {id: 2, operation: size-function, to: [3]}
                - {id: 3, operation: say-a, to: [4]}
                - {id: 4, operation: say-b}
            ---
            apiVersion: diagnosis.kubediag.org/v1
            kind: OperationSet
            metadata: {name: big-argument}
            spec:
              adjacencyList:
                - {id: 0, to: [1]}
                - {id: 1, operation: big-collector, to: [2]}
                - {id: 2, operation: argv-consumer}
            """;

    @TempDir
    Path dir;
    Fleet fleet;
    String admin;

    @BeforeEach
    void start() throws Exception {
        fleet = new Fleet(TestServer.start(), dir.resolve("agents"));
        admin = fleet.server.adminToken();
        assertThat(fleet.server.postRaw("/api/v1/inventory/import", admin, "application/yaml", INVENTORY).status()).isEqualTo(200);
        JsonNode enroll = fleet.server.post("/api/v1/enrollment-tokens", admin, Map.of("name", "e", "bk_biz_id", 2)).body();
        fleet.agent("my-node", "10.9.0.1", enroll.path("token").asText(), Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(30)).until(() -> fleet.server.get("/api/v1/agents", admin).body().path(0).path("online").asBoolean()
                && fleet.server.get("/api/v1/agents", admin).body().path(0).path("bk_host_id").asLong() == 1);
    }

    @AfterEach
    void stop() throws Exception {
        if (fleet != null) {
            fleet.close();
        }
    }

    @Test
    void aMebibyteCollectorResultFlowsIntoAFunctionAndEachNodeKeepsItsResults() throws Exception {
        Path ran = dir.resolve("argv-consumer-ran");
        Path documents = Files.writeString(dir.resolve("big.yaml"), DOCUMENTS.formatted(ran));
        Fleet.Run applied = fleet.drover("diag", "apply", "-f", documents.toString());
        assertThat(applied.exit()).as(applied.err()).isZero();

        Fleet.Run run = fleet.drover("diag", "run", "big-data", "my-node", "--wait");
        assertThat(run.exit()).as(run.out() + run.err()).isZero();
        long id = fleet.server.get("/api/v1/diagnoses", admin).body().path(0).path("id").asLong();
        JsonNode d = fleet.server.get("/api/v1/diagnoses/" + id, admin).body();
        assertThat(d.path("phase").asText()).as(d.path("conditions").toString()).isEqualTo("Succeeded");
        String expectedSha = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                .digest("x".repeat(1 << 20).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        JsonNode nodes = d.path("nodes");
        assertThat(nodes.size()).isEqualTo(4);
        assertThat(nodes.path(0).path("results").path("operation.collector.output").asText()).hasSize(1 << 20);
        assertThat(nodes.path(1).path("results").path("seen.bytes").asText()).isEqualTo(String.valueOf(1 << 20));
        assertThat(nodes.path(1).path("results").path("seen.sha256").asText()).isEqualTo(expectedSha);
        // two nodes writing one key: each run keeps its value, the merged map the later one
        assertThat(nodes.path(2).path("results").path("operation.same.output").asText()).isEqualTo("a\n");
        assertThat(nodes.path(3).path("results").path("operation.same.output").asText()).isEqualTo("b\n");
        assertThat(d.path("operation_results").path("operation.same.output").asText()).isEqualTo("b\n");

        Fleet.Run status = fleet.drover("diag", "status", String.valueOf(id));
        assertThat(status.exit()).as(status.err()).isZero();
        assertThat(status.out()).contains(id + ": path 1 node 2 size-function ok\n", "    seen.bytes = 1048576\n",
                id + ": path 1 node 3 say-a ok\n    operation.same.output = a\n",
                id + ": path 1 node 4 say-b ok\n    operation.same.output = b\n",
                "    operation.collector.output = " + "x".repeat(100) + " … (1048576 characters)\n");

        Fleet.Run refused = fleet.drover("diag", "run", "big-argument", "my-node", "--wait");
        assertThat(refused.exit()).isEqualTo(1);
        assertThat(refused.out()).contains("path 1 node 2 argv-consumer FAILED: scriptRunner: the value of argKey "
                + "'operation.collector.output' is 1048576 bytes, over the limit of 131071 bytes for one argument");
        assertThat(ran).as("the script did not run").doesNotExist();
    }

    @Test
    void anHttpServerOperationWithoutAnAddressIsRefusedWhenApplied() throws Exception {
        // KubeDiag's config/deploy/process_collector.yaml: a built-in processor of KubeDiag's agent, which Drover's lacks
        Path sample = Files.writeString(dir.resolve("process_collector.yaml"), """
                apiVersion: diagnosis.kubediag.org/v1
                kind: Operation
                metadata:
                  name: process-collector
                spec:
                  processor:
                    httpServer:
                      path: /processor/processCollector
                      scheme: http
                    timeoutSeconds: 60
                """);
        Fleet.Run applied = fleet.drover("diag", "apply", "-f", sample.toString());
        assertThat(applied.exit()).isNotZero();
        assertThat(applied.err()).contains("spec.processor.httpServer.address", "is required: Drover's agent serves no built-in processors");
        var put = fleet.server.put("/api/v1/diagnosis/operations/process-collector", admin, Map.of("kind", "Operation", "spec",
                Map.of("processor", Map.of("httpServer", Map.of("path", "/processor/processCollector")))));
        assertThat(put.status()).isEqualTo(422);
        assertThat(put.text()).contains("spec.processor.httpServer.address");
        assertThat(fleet.server.get("/api/v1/diagnosis/operations/process-collector", admin).status()).isEqualTo(404);
    }
}
