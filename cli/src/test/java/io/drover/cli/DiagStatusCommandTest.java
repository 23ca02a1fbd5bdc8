package io.drover.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code drover diag status ID} against a stand-in API that answers one finished diagnosis. */
class DiagStatusCommandTest {
    static final String DIAGNOSIS = """
            {"id": 7, "name": "plugin-down", "phase": "Failed", "host_name": "web-1", "operation_set": "plugin-down",
             "source": "api", "paths": [[1, 2]], "failed_paths": [[1, 2]],
             "nodes": [{"path_index": 0, "node": 1, "operation": "plugin-status", "succeeded": true, "time": "2026-12-01T10:00:00Z",
                        "results": {"plugin.exporter.status": "RUNNING"}},
                       {"path_index": 0, "node": 2, "operation": "plugin-restart", "succeeded": false, "error": "exit status 1",
                        "time": "2026-12-01T10:00:01Z", "results": {"plugin.exporter.status": "STOPPED",
                        "operation.restart.output": "line one\\nline two\\n",
                        "operation.hostile": "\\u001b]52;c;cm0gLXJmIH4K\\u0007\\u001b[2J\\r\\u202eabc"}}],
             "conditions": [], "operation_results": {"plugin.exporter.status": "STOPPED"}}
            """;
    HttpServer api;
    String url;

    @BeforeEach
    void start() throws IOException {
        api = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        api.createContext("/api/v1/diagnoses/7", exchange -> {
            byte[] bytes = DIAGNOSIS.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        api.start();
        url = "http://127.0.0.1:" + api.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        api.stop(0);
    }

    @Test
    void theTextOutputShowsTheNodesThatRanAsWaitDoes() {
        EnrollInstallCommandTest.Run status = EnrollInstallCommandTest.drover("diag", "status", "7", "--server", url, "--token", "drv_admin");

        assertThat(status.exit()).as(status.err()).isZero();
        assertThat(status.out()).contains("7: path 1 node 1 plugin-status ok\n    plugin.exporter.status = RUNNING\n",
                "7: path 1 node 2 plugin-restart FAILED: exit status 1\n    plugin.exporter.status = STOPPED\n"
                        + "    operation.restart.output = line one … (18 characters, 2 lines)\n",
                "diagnosis 7 (plugin-down): Failed on web-1", "plugin.exporter.status: STOPPED");
        // what a host wrote cannot write the clipboard (OSC 52), clear the screen, overwrite the line or reorder it
        assertThat(status.out()).contains("operation.hostile = ?]52;c;cm0gLXJmIH4K??[2J")
                .doesNotContain("\u001b").doesNotContain("\u0007").doesNotContain("\r").doesNotContain("\u202e");
    }
}
