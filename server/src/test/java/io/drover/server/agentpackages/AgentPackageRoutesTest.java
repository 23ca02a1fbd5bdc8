package io.drover.server.agentpackages;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.core.Hashing;
import io.drover.core.archive.TarWriter;
import io.drover.core.testing.AgentPackages;
import io.drover.model.Json;
import io.drover.server.config.ServerConfig;
import io.drover.server.config.Setting;
import io.drover.server.testing.TestServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent-package routes through a real server: upload, list, download by an operator or by an installer with an
 * enrollment token, delete; and what an attacker sends them.
 */
class AgentPackageRoutesTest {
    static final String FILE = "drover-agent-1.2.0-linux-x86_64.tar.gz";
    static final long MAX_BYTES = 64 * 1024;
    static TestServer server;
    static String admin;
    static byte[] tgz;

    @BeforeAll
    static void start() {
        server = TestServer.start(TestServer.newDataDir(), Map.of(Setting.AGENT_PACKAGE_MAX_BYTES, Long.toString(MAX_BYTES)));
        admin = server.adminToken();
        assertThat(server.postRaw("/api/v1/inventory/import", admin, "application/yaml",
                "businesses: [{bk_biz_id: 2, bk_biz_name: two}, {bk_biz_id: 7, bk_biz_name: seven}]").status()).isEqualTo(200);
        tgz = AgentPackages.of("1.2.0", "x86_64");
        Answer stored = upload("?file_name=" + FILE, admin, tgz, false);
        assertThat(stored.status()).as(stored.text()).isEqualTo(201);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** An answer with its raw bytes. */
    record Answer(int status, String contentType, byte[] body, HttpHeaders headers) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        JsonNode json() {
            try {
                return Json.json().readTree(body);
            } catch (IOException e) {
                throw new AssertionError("not JSON: " + text(), e);
            }
        }
    }

    static Answer send(TestServer to, HttpRequest.Builder request) {
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<byte[]> r = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
            return new Answer(r.statusCode(), r.headers().firstValue("Content-Type").orElse(""), r.body(), r.headers());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** GET with this Authorization header (null: none). */
    static Answer get(TestServer to, String path, String authorization) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(to.url() + "/api/v1" + path));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return send(to, b.GET());
    }

    static Answer get(String path, String authorization) {
        return get(server, path, authorization);
    }

    /** POST /agent-packages: the body with its length announced, or streamed in chunks without one. */
    static Answer upload(String query, String token, byte[] body, boolean chunked) {
        HttpRequest.BodyPublisher publisher = chunked ? HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body))
                : HttpRequest.BodyPublishers.ofByteArray(body);
        return send(server, HttpRequest.newBuilder(URI.create(server.url() + "/api/v1/agent-packages" + query))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/gzip").POST(publisher));
    }

    static String token(String role, List<Integer> businesses) {
        return server.post("/api/v1/tokens", admin, Map.of("name", role + businesses + Math.random(), "role", role,
                "bk_biz_ids", businesses)).body().path("token").asText();
    }

    /** A new enrollment token of business 2: {secret, id}. */
    static String[] enrollment(Map<String, Object> more) {
        Map<String, Object> body = new java.util.HashMap<>(Map.of("name", "installers", "bk_biz_id", 2));
        body.putAll(more);
        JsonNode created = server.post("/api/v1/enrollment-tokens", admin, body).body();
        return new String[] {created.path("token").asText(), created.path("info").path("id").asText()};
    }

    static JsonNode enrollmentToken(String id) {
        for (JsonNode t : server.get("/api/v1/enrollment-tokens", admin).body()) {
            if (t.path("id").asText().equals(id)) {
                return t;
            }
        }
        throw new AssertionError("no enrollment token " + id);
    }

    static void assertRefused(Answer r, int status) {
        assertThat(r.status()).as(r.text()).isEqualTo(status);
        assertThat(r.contentType()).startsWith("application/problem+json");
        assertThat(r.json().path("status").asInt()).isEqualTo(status);
        assertThat(r.body()).as("no package bytes").doesNotContain(tgz[0], tgz[1]).hasSizeLessThan(2000);
    }

    static java.util.Set<String> incomingFiles() throws IOException {
        Path incoming = server.dataDir().resolve("agent-packages/.incoming");
        try (var files = Files.list(incoming)) {
            return files.map(p -> p.getFileName().toString()).collect(java.util.stream.Collectors.toSet());
        }
    }

    @Test
    void anUploadedPackageIsListedAndAnOperatorDownloadsItsExactBytes() {
        JsonNode listed = get("/agent-packages", "Bearer " + token("viewer", List.of())).json();
        assertThat(listed).hasSize(1);
        assertThat(listed.get(0).path("file_name").asText()).isEqualTo(FILE);
        assertThat(listed.get(0).path("os").asText()).isEqualTo("linux");
        assertThat(listed.get(0).path("sha256").asText()).isEqualTo(Hashing.sha256(tgz));
        assertThat(listed.get(0).path("size_bytes").asLong()).isEqualTo(tgz.length);
        assertThat(listed.get(0).path("uploaded_by").asText()).isEqualTo("admin");

        for (String path : List.of("/agent-packages/1.2.0/x86_64", "/agent-packages/latest/x86_64")) {
            Answer got = get(path, "Bearer " + token("operator", List.of(2)));
            assertThat(got.status()).as(got.text()).isEqualTo(200);
            assertThat(got.contentType()).isEqualTo("application/gzip");
            assertThat(got.headers().firstValue("Content-Length")).contains(Long.toString(tgz.length));
            assertThat(got.headers().firstValue("Content-Disposition")).contains("attachment; filename=\"" + FILE + "\"");
            assertThat(Hashing.sha256(got.body())).isEqualTo(Hashing.sha256(tgz));
        }
        assertRefused(get("/agent-packages/1.2.0/x86_64", "Bearer " + token("viewer", List.of())), 403);
        assertRefused(get("/agent-packages/1.2.0/aarch64", "Bearer " + admin), 404);
        assertRefused(get("/agent-packages/latest/aarch64", "Bearer " + admin), 404);
    }

    @Test
    void theSameBytesAgainAreNoChangeAndOtherBytesForTheVersionAConflict() {
        Answer again = upload("", admin, tgz, true);
        assertThat(again.status()).as(again.text()).isEqualTo(200);
        assertThat(again.json().path("sha256").asText()).isEqualTo(Hashing.sha256(tgz));
        Answer other = upload("", admin, AgentPackages.of("1.2.0", "x86_64", "#!/bin/sh\necho other\n"), false);
        assertRefused(other, 409);
        assertThat(other.json().path("code").asText()).isEqualTo("agent_package_exists");
        assertThat(Hashing.sha256(get("/agent-packages/1.2.0/x86_64", "Bearer " + admin).body())).isEqualTo(Hashing.sha256(tgz));
        assertRefused(upload("", token("operator", List.of()), AgentPackages.of("1.3.0", "x86_64"), false), 403);
    }

    @Test
    void anInstallerWithAnEnrollmentTokenThatWouldAdmitAnAgentDownloadsWithoutUsingIt() {
        String[] once = enrollment(Map.of("max_uses", 1));
        for (int i = 0; i < 3; i++) {
            Answer got = get("/agent-packages/latest/x86_64", "Enroll " + once[0]);
            assertThat(got.status()).as(got.text()).isEqualTo(200);
            assertThat(Hashing.sha256(got.body())).isEqualTo(Hashing.sha256(tgz));
        }
        assertThat(enrollmentToken(once[1]).path("uses").asLong()).as("downloading uses none of its uses").isZero();
        assertThat(get("/agent-packages/1.2.0/x86_64", "enroll   " + once[0]).status()).as("scheme in any case").isEqualTo(200);

        String[] usedUp = enrollment(Map.of("max_uses", 1));
        server.server().database().jdbi().useHandle(h -> h.execute("UPDATE enrollment_token SET uses = 1 WHERE id = " + usedUp[1]));
        String[] revoked = enrollment(Map.of());
        assertThat(server.delete("/api/v1/enrollment-tokens/" + revoked[1], admin).status()).isEqualTo(204);
        String[] expired = enrollment(Map.of("ttl_hours", 1));
        server.server().database().jdbi().useHandle(h -> h.createUpdate("UPDATE enrollment_token SET expires_at = :t WHERE id = :id")
                .bind("t", OffsetDateTime.now().minusMinutes(1)).bind("id", Long.parseLong(expired[1])).execute());
        for (String refused : List.of("Enroll " + usedUp[0], "Enroll " + revoked[0], "Enroll " + expired[0],
                "Enroll " + once[0] + "x", "Enroll drv_enroll_forged", "Enroll " + admin, "Enroll ", "Enroll")) {
            Answer r = get("/agent-packages/1.2.0/x86_64", refused);
            assertRefused(r, 401);
            assertThat(r.json().path("detail").asText()).as(refused).containsIgnoringCase("enroll");
        }
        assertThat(get("/agent-packages/1.2.0/x86_64", "Enroll " + expired[0]).json().path("detail").asText())
                .isEqualTo("the enrollment token is unknown, expired, revoked or used up");
        assertRefused(get("/agent-packages/1.2.0/x86_64?token=" + once[0], null), 401);
        assertRefused(get("/agent-packages/1.2.0/x86_64", "Bearer " + once[0]), 401);
        // only the download takes it
        assertRefused(get("/agent-packages", "Enroll " + once[0]), 401);
        assertRefused(get("/enrollment-tokens", "Enroll " + once[0]), 401);
        assertRefused(get("/agents", "Enroll " + once[0]), 401);
        assertThat(enrollmentToken(once[1]).path("uses").asLong()).isZero();
    }

    @Test
    void failedEnrollmentTokensCountAgainstTheAddressAndAValidOneIsStillServed() {
        try (TestServer limited = TestServer.start(TestServer.newDataDir(), Map.of(Setting.AUTH_FAILURES_PER_MINUTE, "3"))) {
            TestServer.awaitRoomInTheMinute();
            String limitedAdmin = limited.adminToken();
            limited.postRaw("/api/v1/inventory/import", limitedAdmin, "application/yaml", "businesses: [{bk_biz_id: 2, bk_biz_name: two}]");
            String good = limited.post("/api/v1/enrollment-tokens", limitedAdmin, Map.of("name", "i", "bk_biz_id", 2)).body()
                    .path("token").asText();
            for (int i = 0; i < 3; i++) {
                assertThat(get(limited, "/agent-packages/latest/x86_64", "Enroll drv_enroll_guess" + i).status()).isEqualTo(401);
            }
            Answer held = get(limited, "/agent-packages/latest/x86_64", "Enroll drv_enroll_guess");
            assertThat(held.status()).as(held.text()).isEqualTo(429);
            assertThat(held.headers().firstValue("Retry-After")).isPresent();
            assertThat(get(limited, "/agent-packages/latest/x86_64", "Enroll " + good).status())
                    .as("valid, so served: no package is stored").isEqualTo(404);
        }
    }

    @Test
    void oversizedUploadsAreRefusedFromTheirLengthOrAsTheyArriveAndLeaveNothing() throws IOException {
        // Megabytes past the limit: a server that closes on them unread resets the connection under the client's answer.
        byte[] noise = new byte[2 << 20];
        new Random(7).nextBytes(noise);
        byte[] big = AgentPackages.of("9.0.0", "x86_64", "#!/bin/sh\n# " + java.util.HexFormat.of().formatHex(noise) + "\n");
        assertThat((long) big.length).isGreaterThan(MAX_BYTES);
        assertRefused(upload("", admin, big, false), 413);
        Answer streamed = upload("", admin, big, true);
        assertRefused(streamed, 413);
        assertThat(streamed.json().path("detail").asText()).contains("agent-package-max-bytes");
        assertRefused(upload("", admin, new byte[0], false), 400);
        assertThat(get("/agent-packages", "Bearer " + admin).json().findValuesAsText("version")).containsExactly("1.2.0");
        assertThat(incomingFiles()).isEmpty();
    }

    /** What {@code drover agent-package upload} does: it asks with {@code Expect: 100-continue} before sending a file. */
    @Test
    void anUploadThatAsksBeforeSendingIsRefusedWithoutBeingToldToSend() throws IOException {
        URI base = URI.create(server.url());
        try (java.net.Socket socket = new java.net.Socket(base.getHost(), base.getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(("POST /api/v1/agent-packages HTTP/1.1\r\nHost: drover\r\nAuthorization: Bearer " + admin
                    + "\r\nContent-Type: application/gzip\r\nContent-Length: " + 1000 * MAX_BYTES
                    + "\r\nExpect: 100-continue\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            String answer = new String(socket.getInputStream().readNBytes(400), StandardCharsets.ISO_8859_1);
            assertThat(answer).as("the first answer is the refusal, not '100 Continue'").startsWith("HTTP/1.1 413 ")
                    .contains("application/problem+json");
        }
        assertThat(incomingFiles()).isEmpty();
    }

    @Test
    void aPackageWhoseContentsDoNotMatchItsNameIsRefused() throws IOException {
        String top = "drover-agent-2.0.0-linux-x86_64";
        byte[] lying = AgentPackages.tgz(tar -> {
            tar.file(top + "/VERSION", 0644, "2.0.1\n".getBytes(StandardCharsets.UTF_8));
            tar.file(top + "/ARCH", 0644, "x86_64\n".getBytes(StandardCharsets.UTF_8));
            tar.file(top + "/bin/drover-agent", 0755, "#!/bin/sh\n".getBytes(StandardCharsets.UTF_8));
        });
        Answer r = upload("?file_name=" + top + ".tar.gz", admin, lying, false);
        assertRefused(r, 422);
        assertThat(r.json().path("code").asText()).isEqualTo("invalid_agent_package");
        assertThat(r.json().path("detail").asText()).contains(top + "/VERSION says '2.0.1' but the package is named for version 2.0.0");

        Answer renamed = upload("?file_name=drover-agent-2.0.0-linux-aarch64.tar.gz", admin, AgentPackages.of("2.0.0", "x86_64"), false);
        assertRefused(renamed, 422);
        assertThat(renamed.json().path("errors").get(0).path("field").asText()).isEqualTo("file_name");
        assertThat(renamed.json().path("detail").asText()).contains("its contents make it drover-agent-2.0.0-linux-x86_64.tar.gz");

        Answer traversal = upload("?file_name=" + top + "/../../../etc/passwd%00.tar.gz", admin, AgentPackages.of("2.0.0", "x86_64"), false);
        assertRefused(traversal, 422);
        assertThat(traversal.json().path("detail").asText()).contains("\\u0000").doesNotContain("\u0000");
        byte[] escaping = AgentPackages.tgz((TarWriter tar) -> {
            tar.file(top + "/VERSION", 0644, "2.0.0\n".getBytes(StandardCharsets.UTF_8));
            tar.special(top + "/etc", '2', "../../../etc");
        });
        assertThat(upload("", admin, escaping, false).json().path("detail").asText()).contains("outside the package");
        assertRefused(upload("", admin, "{\"not\": \"a package\"}".getBytes(StandardCharsets.UTF_8), false), 422);
        assertThat(get("/agent-packages", "Bearer " + admin).json().findValuesAsText("version")).containsExactly("1.2.0");
        assertThat(incomingFiles()).isEmpty();
    }

    @Test
    void versionsAndArchitecturesInPathsAreCheckedBeforeAnyFileIsNamed() {
        Map<String, String> refused = new java.util.LinkedHashMap<>();
        refused.put("/agent-packages/..%2F..%2F..%2Fetc%2Fpasswd/x86_64", "");
        refused.put("/agent-packages/1.2.0/..%2F..%2Fsecret.key", "");
        refused.put("/agent-packages/1.2.0%00/x86_64", ""); // Jetty refuses a NUL in a path itself
        refused.put("/agent-packages/1.2.0%E2%80%AE/x86_64", "\\u202e");
        refused.put("/agent-packages/%EF%BC%91.2.0/x86_64", "\\uff11");
        refused.put("/agent-packages/1.2.0/x86%5F64%00", "");
        refused.put("/agent-packages/1.2.0/x86_64%0A", "arch");
        refused.put("/agent-packages/1.2.0/X86_64", "is not one of [x86_64, aarch64]");
        refused.put("/agent-packages/v1.2.0/x86_64", "normal form");
        refused.put("/agent-packages/latest/riscv64", "arch");
        refused.put("/agent-packages/" + "1".repeat(3000) + "/x86_64", "must be 1 to 64");
        refused.forEach((path, why) -> {
            Answer r = get(path, "Bearer " + admin);
            assertThat(r.status()).as(path + " " + r.text()).isBetween(400, 499);
            assertThat(r.contentType()).as(path).startsWith("application/problem+json");
            assertThat(r.text()).as(path).contains(why).doesNotContain("\u0000").doesNotContain("root:");
            assertThat(send(server, HttpRequest.newBuilder(URI.create(server.url() + "/api/v1" + path))
                    .header("Authorization", "Bearer " + admin).DELETE()).status()).as("DELETE " + path).isBetween(400, 499);
        });
        assertThat(get("/agent-packages", "Bearer " + admin).json().findValuesAsText("version")).containsExactly("1.2.0");
    }

    @Test
    void theNewestVersionIsLatestByVersionOrderAndDeletedPackagesAreGone() {
        for (String version : List.of("1.10.0", "1.9.0", "1.10.0-rc.1")) {
            assertThat(upload("", admin, AgentPackages.of(version, "aarch64"), false).status()).isEqualTo(201);
        }
        Answer latest = get("/agent-packages/latest/aarch64", "Bearer " + admin);
        assertThat(Hashing.sha256(latest.body())).isEqualTo(Hashing.sha256(AgentPackages.of("1.10.0", "aarch64")));
        assertThat(latest.headers().firstValue("Content-Disposition")).contains("attachment; filename=\"drover-agent-1.10.0-linux-aarch64.tar.gz\"");

        assertThat(server.delete("/api/v1/agent-packages/1.10.0/aarch64", token("operator", List.of())).status()).isEqualTo(403);
        assertThat(server.delete("/api/v1/agent-packages/1.10.0/aarch64", admin).status()).isEqualTo(204);
        assertThat(server.delete("/api/v1/agent-packages/1.10.0/aarch64", admin).status()).isEqualTo(404);
        assertThat(server.dataDir().resolve("agent-packages/drover-agent-1.10.0-linux-aarch64.tar.gz")).doesNotExist();
        assertThat(get("/agent-packages/latest/aarch64", "Bearer " + admin).headers().firstValue("Content-Disposition"))
                .contains("attachment; filename=\"drover-agent-1.10.0-rc.1-linux-aarch64.tar.gz\"");
        for (String version : List.of("1.9.0", "1.10.0-rc.1")) {
            assertThat(server.delete("/api/v1/agent-packages/" + version + "/aarch64", admin).status()).isEqualTo(204);
        }
    }

    @Test
    void theApiDescriptionListsTheRoutesWithTheirRolesAndTheEnrollmentToken() {
        JsonNode paths = server.get("/api/v1/openapi.json", null).body().path("paths");
        JsonNode download = paths.path("/api/v1/agent-packages/{version}/{arch}").path("get");
        assertThat(download.path("x-drover-role").asText()).isEqualTo("operator");
        assertThat(download.path("x-drover-scope").asText()).isEqualTo("shared");
        assertThat(download.path("x-drover-also-accepts").asText()).isEqualTo("enrollment token");
        assertThat(download.path("security").toString()).isEqualTo("[{\"bearer\":[]},{\"enroll\":[]}]");
        assertThat(paths.path("/api/v1/agent-packages").path("post").path("x-drover-role").asText()).isEqualTo("admin");
        assertThat(paths.path("/api/v1/agent-packages").path("post").path("x-drover-scope").asText()).isEqualTo("all_businesses");
        assertThat(paths.path("/api/v1/agent-packages").path("get").path("x-drover-role").asText()).isEqualTo("viewer");
        assertThat(paths.path("/api/v1/agent-packages/{version}/{arch}").path("delete").path("x-drover-role").asText()).isEqualTo("admin");
        assertThat(paths.path("/api/v1/agents").path("get").has("x-drover-also-accepts")).isFalse();
    }

    @Test
    void theDistributionsPackagesAreRegisteredAtStartWhenTheirSha256Checks(@TempDir Path home) throws IOException {
        Path dir = Files.createDirectories(home.resolve("agent-packages"));
        byte[] x86 = AgentPackages.of("3.0.0", "x86_64");
        byte[] arm = AgentPackages.of("3.0.0", "aarch64");
        byte[] tampered = AgentPackages.of("3.0.1", "x86_64");
        Files.write(dir.resolve("drover-agent-3.0.0-linux-x86_64.tar.gz"), x86);
        Files.writeString(dir.resolve("drover-agent-3.0.0-linux-x86_64.tar.gz.sha256"),
                Hashing.sha256(x86) + "  drover-agent-3.0.0-linux-x86_64.tar.gz\n");
        Files.write(dir.resolve("drover-agent-3.0.0-linux-aarch64.tar.gz"), arm);
        Files.writeString(dir.resolve("drover-agent-3.0.0-linux-aarch64.tar.gz.sha256"), Hashing.sha256(arm) + " *drover-agent-3.0.0-linux-aarch64.tar.gz");
        Files.write(dir.resolve("drover-agent-3.0.1-linux-x86_64.tar.gz"), tampered);
        Files.writeString(dir.resolve("drover-agent-3.0.1-linux-x86_64.tar.gz.sha256"),
                Hashing.sha256(x86) + "  drover-agent-3.0.1-linux-x86_64.tar.gz\n");
        Files.write(dir.resolve("drover-agent-3.0.2-linux-x86_64.tar.gz"), AgentPackages.of("3.0.2", "x86_64")); // no .sha256
        Files.write(dir.resolve("drover-agent-3.0.3-linux-x86_64.tar.gz"), x86); // holds 3.0.0
        Files.writeString(dir.resolve("drover-agent-3.0.3-linux-x86_64.tar.gz.sha256"), Hashing.sha256(x86));
        Files.write(dir.resolve("notes.tar.gz"), x86);

        Path data = TestServer.newDataDir();
        Path leftover = Files.write(Files.createDirectories(data.resolve("agent-packages/.incoming")).resolve("upload-1.tar.gz"), x86);
        Map<Setting, String> settings = Map.of(Setting.AGENT_PACKAGES_DIR, dir.toString());
        try (TestServer started = TestServer.start(data, settings)) {
            JsonNode listed = get(started, "/agent-packages", "Bearer " + started.adminToken()).json();
            assertThat(listed.findValuesAsText("file_name")).containsExactlyInAnyOrder("drover-agent-3.0.0-linux-x86_64.tar.gz",
                    "drover-agent-3.0.0-linux-aarch64.tar.gz");
            assertThat(listed.findValuesAsText("uploaded_by")).containsOnly(AgentPackageService.BUILD);
            assertThat(leftover).as("an upload cut short by the last stop").doesNotExist();
            assertThat(Hashing.sha256(get(started, "/agent-packages/latest/aarch64", "Bearer " + started.adminToken()).body()))
                    .isEqualTo(Hashing.sha256(arm));
        }
        try (TestServer again = TestServer.start(data, settings)) {
            assertThat(get(again, "/agent-packages", "Bearer " + again.adminToken()).json()).as("registered once").hasSize(2);
        }

        String previous = System.getProperty(ServerConfig.HOME_PROPERTY);
        try {
            System.setProperty(ServerConfig.HOME_PROPERTY, home.toString());
            assertThat(TestServer.config(data, Map.of()).agentPackagesDir()).isEqualTo(dir);
            System.clearProperty(ServerConfig.HOME_PROPERTY);
            assertThat(TestServer.config(data, Map.of()).agentPackagesDir()).as("running from classes").isNull();
        } finally {
            if (previous != null) {
                System.setProperty(ServerConfig.HOME_PROPERTY, previous);
            }
        }
    }
}
