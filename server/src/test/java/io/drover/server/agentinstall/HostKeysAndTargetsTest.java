package io.drover.server.agentinstall;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.server.config.Setting;
import io.drover.server.testing.TestServer;
import io.drover.server.testing.TestServer.Response;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.server.SshServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A real server whose agent installs may reach 127.0.0.1 on ports 1024 and up and [::1]:22 only, against an in-process SSH
 * server (Apache MINA SSHD) that refuses every login: enough to record host keys, change one, forget it and see the
 * next contact record the new one, and to see targets outside the allow-list refused before anything is stored.
 */
class HostKeysAndTargetsTest {
    static TestServer server;
    static String admin;
    static String operator;
    static String scopedOperator;

    @BeforeAll
    static void start() {
        server = TestServer.start(TestServer.newDataDir(), Map.of(Setting.AGENT_INSTALL_ALLOWED_TARGETS, "127.0.0.1:1024-65535, [::1]:22"));
        admin = server.adminToken();
        Response biz = server.postRaw("/api/v1/inventory/import", admin, "application/yaml",
                "businesses: [{bk_biz_id: 2, bk_biz_name: shop}]\n");
        assertThat(biz.status()).as(biz.text()).isEqualTo(200);
        operator = token("ops", "operator", List.of());
        scopedOperator = token("shop-ops", "operator", List.of(2));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static String token(String name, String role, List<Integer> biz) {
        Response r = server.post("/api/v1/tokens", admin, Map.of("name", name, "role", role, "bk_biz_ids", biz));
        assertThat(r.status()).as(r.text()).isEqualTo(201);
        return r.body().path("token").asText();
    }

    /** An SSH server on 127.0.0.1 with a new ECDSA host key that refuses every login. */
    static SshServer sshServer(int port) throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(256);
        SshServer sshd = SshServer.setUpDefaultServer();
        sshd.setHost("127.0.0.1");
        sshd.setPort(port);
        sshd.setKeyPairProvider(KeyPairProvider.wrap(generator.generateKeyPair()));
        sshd.setPasswordAuthenticator((user, password, session) -> false);
        sshd.start();
        return sshd;
    }

    static Map<String, Object> request(String address, int port, String jump) {
        Map<String, Object> host = new LinkedHashMap<>();
        host.put("address", address);
        host.put("port", port);
        host.put("id", "h-" + port);
        Map<String, Object> r = new HashMap<>();
        r.put("hosts", List.of(host));
        r.put("ssh_user", "root");
        r.put("ssh_password", "not-the-password");
        r.put("bk_biz_id", 2);
        r.put("masters", List.of("127.0.0.1:4506"));
        if (jump != null) {
            r.put("jump", jump);
        }
        return r;
    }

    static JsonNode install(Map<String, Object> request) {
        Response started = server.post("/api/v1/agent-installs", operator, request);
        assertThat(started.status()).as(started.text()).isEqualTo(202);
        return awaitEnd(started.body().path("id").asLong());
    }

    static JsonNode awaitEnd(long id) {
        JsonNode[] task = new JsonNode[1];
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
            task[0] = server.get("/api/v1/agent-installs/" + id, operator).body();
            return !task[0].path("status").asText().equals("running");
        });
        return task[0].path("hosts").get(0);
    }

    static JsonNode recorded(String address, int port) {
        for (JsonNode key : server.get("/api/v1/agent-installs/host-keys", operator).body()) {
            if (key.path("address").asText().equals(address) && key.path("port").asInt() == port) {
                return key;
            }
        }
        return null;
    }

    @Test
    void aChangedKeyFailsWithHowToForgetItAndAfterForgettingTheNextContactRecordsTheNewKey() throws Exception {
        SshServer first = sshServer(0);
        int port = first.getPort();
        SshServer second = null;
        try {
            // "localhost" is resolved once, checked (127.0.0.1 is allowed) and connected to at that address
            JsonNode h = install(request("localhost", port, null));
            assertThat(h.path("error").asText()).as(h.toString()).contains("authentication of root on localhost:" + port + " failed");
            assertThat(h.path("steps").get(0).toString()).contains("connecting to localhost:" + port + " at 127.0.0.1")
                    .contains("host key of localhost:" + port + " seen for the first time");
            JsonNode before = recorded("localhost", port);
            assertThat(before).isNotNull();
            assertThat(before.path("key_type").asText()).isEqualTo("ecdsa-sha2-nistp256");
            assertThat(before.path("fingerprint").asText()).startsWith("SHA256:");
            assertThat(before.path("first_seen").asText()).isNotEmpty();

            // the host is "re-installed": another key on the same port
            first.stop(true);
            second = sshServer(port);
            JsonNode changed = install(request("localhost", port, null));
            assertThat(changed.path("error").asText()).contains("the host key of localhost:" + port + " changed: recorded "
                    + "ecdsa-sha2-nistp256 " + before.path("fingerprint").asText())
                    .endsWith("; if the host was re-installed: drover agent host-key forget localhost:" + port + ", then retry");
            assertThat(recorded("localhost", port)).as("a changed key is not recorded").isEqualTo(before);

            // only an admin forgets a key; an operator may list them when the token covers every business
            assertThat(server.delete("/api/v1/agent-installs/host-keys/localhost/" + port, operator).status()).isEqualTo(403);
            assertThat(server.get("/api/v1/agent-installs/host-keys", scopedOperator).status()).isEqualTo(403);
            assertThat(server.get("/api/v1/agent-installs/host-keys", token("viewer", "viewer", List.of())).status()).isEqualTo(403);
            assertThat(recorded("localhost", port)).isEqualTo(before);
            Response forgot = server.delete("/api/v1/agent-installs/host-keys/localhost/" + port, admin);
            assertThat(forgot.status()).as(forgot.text()).isEqualTo(204);
            assertThat(recorded("localhost", port)).isNull();
            assertThat(server.get("/api/v1/audit?limit=20", admin).text())
                    .contains("DELETE").contains("/api/v1/agent-installs/host-keys/localhost/" + port);
            Response again = server.delete("/api/v1/agent-installs/host-keys/localhost/" + port, admin);
            assertThat(again.status()).isEqualTo(404);
            assertThat(again.contentType()).startsWith("application/problem+json");
            assertThat(again.body().path("detail").asText()).contains("localhost:" + port);

            // the next contact records the key presented now
            JsonNode retried = install(request("localhost", port, null));
            assertThat(retried.path("steps").get(0).toString()).contains("host key of localhost:" + port + " seen for the first time");
            assertThat(retried.path("error").asText()).contains("authentication of root");
            JsonNode after = recorded("localhost", port);
            assertThat(after.path("fingerprint").asText()).isNotEqualTo(before.path("fingerprint").asText());
            assertThat(changed.path("error").asText()).contains("presented ecdsa-sha2-nistp256 " + after.path("fingerprint").asText());
        } finally {
            first.stop(true);
            if (second != null) {
                second.stop(true);
            }
        }
    }

    @Test
    void forgettingRefusesMalformedAddressesAndPortsWithTheirNames() {
        record Bad(String path, String field) {
        }
        // a NUL in a path is refused before any route (problem+json all the same)
        Response nul = server.delete("/api/v1/agent-installs/host-keys/host%00.example/22", admin);
        assertThat(nul.status()).as(nul.text()).isEqualTo(400);
        assertThat(nul.contentType()).startsWith("application/problem+json");
        for (Bad bad : List.of(new Bad("host%01.example/22", "address"), new Bad("%EF%BD%85xample.com/22", "address"),
                new Bad("a%E2%80%AEb/22", "address"), new Bad("a".repeat(300) + "/22", "address"),
                new Bad("%5B%3A%3A1%5D/22", "address"), new Bad("-lead/22", "address"), new Bad("a%20b/22", "address"),
                new Bad("10.0.0.1/0", "port"), new Bad("10.0.0.1/65536", "port"), new Bad("10.0.0.1/x", "port"),
                new Bad("10.0.0.1/-1", "port"), new Bad("10.0.0.1/99999999999", "port"))) {
            Response r = server.delete("/api/v1/agent-installs/host-keys/" + bad.path(), admin);
            assertThat(r.status()).as(bad.path() + ": " + r.text()).isEqualTo(422);
            assertThat(r.contentType()).startsWith("application/problem+json");
            assertThat(r.body().path("errors").toString()).as(bad.path()).contains("\"field\":\"" + bad.field() + "\"");
            assertThat(r.text()).doesNotContain("\u0000").doesNotContain("\u202e");
        }
        // an IPv6 address unknown here, as is and percent-encoded (as the CLI sends it): 404 naming it
        for (String address : List.of("fd00::1", "fd00%3A%3A1")) {
            Response unknown = server.delete("/api/v1/agent-installs/host-keys/" + address + "/22", admin);
            assertThat(unknown.status()).as(unknown.text()).isEqualTo(404);
            assertThat(unknown.body().path("code").asText()).isEqualTo("not_found");
            assertThat(unknown.body().path("detail").asText()).contains("[fd00::1]:22");
        }
    }

    @Test
    void targetsOutsideTheAllowListAreRefusedBeforeAnythingIsStored() {
        int tasks = server.get("/api/v1/agent-installs", admin).body().size();
        record Refused(Map<String, Object> request, String field, String why) {
        }
        Map<String, Object> two = request("127.0.0.1", 2222, null);
        two.put("hosts", List.of(Map.of("address", "127.0.0.1", "port", 2222, "id", "ok"),
                Map.of("address", "127.0.0.2", "port", 22, "id", "out")));
        for (Refused r : List.of(
                new Refused(request("127.0.0.2", 22, null), "hosts[0].address", "127.0.0.2 is outside agent-install-allowed-targets on port 22"),
                new Refused(two, "hosts[1].address", "127.0.0.2 is outside"),
                new Refused(request("0:0:0:0:0:0:0:1", 2222, null), "hosts[0].address",
                        "0:0:0:0:0:0:0:1 is outside agent-install-allowed-targets on port 2222"),
                new Refused(request("10.0.0.1", 22, null), "hosts[0].address", "is outside"),
                new Refused(request("0.0.0.0", 22, null), "hosts[0].address", "is outside"),
                new Refused(request("0::ffff:10.0.0.1", 22, null), "hosts[0].address", "is outside"),
                new Refused(request("no-such-host.invalid", 22, null), "hosts[0].address", "does not resolve"),
                new Refused(request("127.0.0.1", 22, null), "hosts[0].address", "127.0.0.1 is outside agent-install-allowed-targets on port 22"),
                new Refused(request("127.0.0.1", 2222, "root@10.0.0.1:22"), "jump", "10.0.0.1 is outside"),
                new Refused(request("127.0.0.1", 2222, "root@127.0.0.1"), "jump", "127.0.0.1 is outside agent-install-allowed-targets on port 22"),
                new Refused(request("127.0.0.1", 2222, "root@no-such-host.invalid"), "jump", "does not resolve"),
                // a name that resolves outside: refused without saying where it resolves to
                new Refused(request("localhost", 22, null), "hosts[0].address", "resolves to an address that is outside "
                        + "agent-install-allowed-targets on port 22"))) {
            Response answer = server.post("/api/v1/agent-installs", operator, r.request());
            assertThat(answer.status()).as(answer.text()).isEqualTo(422);
            assertThat(answer.body().path("code").asText()).isEqualTo("target_not_allowed");
            assertThat(answer.body().path("errors").toString()).contains("\"field\":\"" + r.field() + "\"").contains(r.why());
        }
        assertThat(server.get("/api/v1/agent-installs", admin).body().size()).as("nothing stored").isEqualTo(tasks);
    }
}
