package io.drover.server.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.server.config.Setting;
import io.drover.server.testing.ManualClock;
import io.drover.server.testing.TestServer;
import io.drover.server.testing.TestServer.Response;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A flood of bad tokens grows neither the audit log nor the work done; old audit entries are pruned. */
class AuditBoundsTest {

    long auditRows(TestServer server) {
        return server.server().database().jdbi().withHandle(h -> h.createQuery("SELECT COUNT(*) FROM audit_log")
                .mapTo(Long.class).one());
    }

    @Test
    void failedAuthenticationsAreLimitedPerAddressAndNotAuditedOneByOne() {
        try (TestServer server = TestServer.start(TestServer.newDataDir(), Map.of(Setting.AUTH_FAILURES_PER_MINUTE, "5"))) {
            TestServer.awaitRoomInTheMinute();
            long before = auditRows(server);
            for (int i = 0; i < 5; i++) {
                Response r = server.post("/api/v1/sets", "drv_guess-" + i, Map.of("bk_biz_id", 1, "bk_set_name", "x"));
                assertThat(r.status()).as(r.text()).isEqualTo(401);
            }
            Response held = server.post("/api/v1/sets", "drv_guess-6", Map.of("bk_biz_id", 1, "bk_set_name", "x"));
            assertThat(held.status()).isEqualTo(429);
            assertThat(held.contentType()).startsWith("application/problem+json");
            assertThat(held.body().path("code").asText()).isEqualTo("too_many_failed_authentications");
            assertThat(held.headers().firstValue("Retry-After")).hasValueSatisfying(v -> assertThat(Long.parseLong(v)).isBetween(1L, 60L));
            Response valid = server.get("/api/v1/hosts", server.adminToken());
            assertThat(valid.status()).as("a valid token is served whatever its address did: a stranger cannot lock users out")
                    .isEqualTo(200);
            assertThat(server.get("/api/v1/hosts", "drv_guess-7").status()).as("bad tokens still wait").isEqualTo(429);
            assertThat(server.get("/api/v1/hosts", null).status()).as("so do requests without one").isEqualTo(429);
            assertThat(auditRows(server)).as("no audit row per failed request").isEqualTo(before);
            assertThat(server.get("/healthz", null).status()).as("probes need no token and are not held").isEqualTo(200);
        }
    }

    /** A request with a token and an X-Forwarded-For header, as a reverse proxy forwards it. */
    static int viaProxy(TestServer server, String token, String forwardedFor) throws Exception {
        java.net.http.HttpRequest.Builder b = java.net.http.HttpRequest.newBuilder(java.net.URI.create(server.url() + "/api/v1/hosts"))
                .header("Authorization", "Bearer " + token);
        if (forwardedFor != null) {
            b.header("X-Forwarded-For", forwardedFor);
        }
        return java.net.http.HttpClient.newHttpClient().send(b.build(), java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    @Test
    void behindATrustedProxyFailuresAreCountedPerForwardedClient() throws Exception {
        try (TestServer server = TestServer.start(TestServer.newDataDir(), Map.of(Setting.AUTH_FAILURES_PER_MINUTE, "3",
                Setting.TRUSTED_PROXIES, "127.0.0.1/32, ::1"))) {
            TestServer.awaitRoomInTheMinute();
            for (int i = 0; i < 3; i++) {
                assertThat(viaProxy(server, "drv_guess", "198.51.100.7, 127.0.0.1")).isEqualTo(401);
            }
            assertThat(viaProxy(server, "drv_guess", "198.51.100.7")).as("the stranger waits").isEqualTo(429);
            assertThat(viaProxy(server, "drv_guess", "203.0.113.9")).as("another client behind the same proxy does not")
                    .isEqualTo(401);
            assertThat(viaProxy(server, "drv_guess", "198.51.100.7, 999.1.1.1")).as("a malformed hop: the proxy's address counts")
                    .isEqualTo(401);
        }
    }

    @Test
    void withoutTrustedProxiesAForwardedForHeaderIsNotBelieved() throws Exception {
        try (TestServer server = TestServer.start(TestServer.newDataDir(), Map.of(Setting.AUTH_FAILURES_PER_MINUTE, "3"))) {
            TestServer.awaitRoomInTheMinute();
            for (int i = 0; i < 3; i++) {
                assertThat(viaProxy(server, "drv_guess", "198.51.100." + i)).isEqualTo(401);
            }
            assertThat(viaProxy(server, "drv_guess", "198.51.100.200")).as("a made-up header does not escape the limit")
                    .isEqualTo(429);
            assertThat(viaProxy(server, server.adminToken(), "198.51.100.200")).isEqualTo(200);
        }
    }

    @Test
    void entriesOlderThanTheRetentionArePruned() {
        try (TestServer server = TestServer.start()) {
            server.post("/api/v1/sets", server.adminToken(), Map.of("bk_biz_id", 1, "bk_set_name", "recent"));
            ManualClock clock = new ManualClock(Instant.now().minus(Duration.ofDays(91)).toEpochMilli());
            AuditStore audit = new AuditStore(server.server().database().jdbi(), clock);
            audit.record("old", "POST", "/api/v1/sets", 201, null);
            clock.advance(Duration.ofDays(91));
            long before = auditRows(server);
            assertThat(audit.prune(90)).isEqualTo(1);
            assertThat(auditRows(server)).isEqualTo(before - 1);
            assertThat(audit.list(0, 10).items()).extracting(e -> e.actor()).doesNotContain("old").isNotEmpty();
        }
    }
}
