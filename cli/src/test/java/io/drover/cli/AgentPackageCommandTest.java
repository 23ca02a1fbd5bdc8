package io.drover.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code drover agent-package}: what it sends the API (a stand-in that records each request) and what it prints. */
class AgentPackageCommandTest {
    @TempDir
    Path dir;
    HttpServer api;
    String url;
    final List<String> requests = new ArrayList<>();
    byte[] received;
    String expect;

    @BeforeEach
    void start() throws IOException {
        api = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        api.createContext("/api/v1/", exchange -> {
            requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getRawPath()
                    + (exchange.getRequestURI().getRawQuery() == null ? "" : "?" + exchange.getRequestURI().getRawQuery())
                    + " " + exchange.getRequestHeaders().getFirst("Content-Type"));
            expect = exchange.getRequestHeaders().getFirst("Expect");
            received = exchange.getRequestBody().readAllBytes();
            String body = exchange.getRequestMethod().equals("DELETE") ? "" : exchange.getRequestMethod().equals("POST")
                    ? "{\"version\": \"2.0.0+b.1\", \"os\": \"linux\", \"arch\": \"x86_64\", \"file_name\": "
                    + "\"drover-agent-2.0.0+b.1-linux-x86_64.tar.gz\", \"sha256\": \"" + "ab".repeat(32) + "\", \"size_bytes\": 4,"
                    + " \"uploaded_at\": \"2026-12-01T10:00:00Z\", \"uploaded_by\": \"admin\"}"
                    : "[{\"version\": \"2.0.0\", \"os\": \"linux\", \"arch\": \"aarch64\", \"sha256\": \"" + "cd".repeat(32)
                    + "\", \"size_bytes\": 4, \"uploaded_at\": \"2026-12-01T10:00:00Z\", \"uploaded_by\": \"system:build\"}]";
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(body.isEmpty() ? 204 : 200, body.isEmpty() ? -1 : bytes.length);
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

    EnrollInstallCommandTest.Run drover(String... args) {
        List<String> full = new ArrayList<>(List.of(args));
        full.addAll(List.of("--server", url, "--token", "drv_admin"));
        return EnrollInstallCommandTest.drover(full.toArray(String[]::new));
    }

    @Test
    void uploadSendsTheFileUnderItsNameAndListAndDeleteNameTheirPackages() throws IOException {
        Path file = Files.write(dir.resolve("drover-agent-2.0.0+b.1-linux-x86_64.tar.gz"), new byte[] {1, 2, 3, 4});

        EnrollInstallCommandTest.Run upload = drover("agent-package", "upload", file.toString());
        assertThat(upload.exit()).as(upload.err()).isZero();
        assertThat(upload.out()).isEqualTo("drover-agent-2.0.0+b.1-linux-x86_64.tar.gz is stored (sha256 " + "ab".repeat(32)
                + ", uploaded by admin at 2026-12-01T10:00:00Z)\n");
        assertThat(received).containsExactly(1, 2, 3, 4);
        assertThat(expect).as("asks first, so that a refused package of hundreds of megabytes is not sent").isEqualToIgnoringCase("100-continue");

        EnrollInstallCommandTest.Run list = drover("agent-package", "list");
        assertThat(list.out()).contains("VERSION").contains("2.0.0").contains("aarch64").contains("cdcdcdcdcdcd").contains("system:build");
        assertThat(drover("agent-package", "delete", "2.0.0+b.1", "x86_64").out()).isEqualTo("agent package 2.0.0+b.1 for x86_64 deleted\n");

        assertThat(requests).containsExactly(
                "POST /api/v1/agent-packages?file_name=drover-agent-2.0.0%2Bb.1-linux-x86_64.tar.gz application/gzip",
                "GET /api/v1/agent-packages null",
                "DELETE /api/v1/agent-packages/2.0.0%2Bb.1/x86_64 null");
    }

    @Test
    void aFileNotNamedLikeAnAgentPackageIsNotSent() throws IOException {
        Path file = Files.write(dir.resolve("agent.tgz"), new byte[] {1});

        EnrollInstallCommandTest.Run run = drover("agent-package", "upload", file.toString());

        assertThat(run.exit()).isNotZero();
        assertThat(run.err()).contains("'agent.tgz' is not named drover-agent-<version>-linux-<arch>.tar.gz (rename it");
        assertThat(drover("agent-package", "upload", dir.resolve("missing.tar.gz").toString()).err()).contains("is not a file");
        assertThat(requests).isEmpty();
    }
}
