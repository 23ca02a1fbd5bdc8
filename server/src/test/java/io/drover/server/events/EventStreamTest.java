package io.drover.server.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.server.testing.EventFollower;
import io.drover.server.testing.TestServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The SSE stream: live events filtered by tag glob, replay with since, and business scoping. */
class EventStreamTest {
    static TestServer server;

    @BeforeAll
    static void start() {
        server = TestServer.start();
        server.post("/api/v1/businesses", server.adminToken(), Map.of("bk_biz_id", 2, "bk_biz_name", "shop"));
        server.post("/api/v1/businesses", server.adminToken(), Map.of("bk_biz_id", 7, "bk_biz_name", "other"));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static EventFollower follow(String query, String token) {
        return new EventFollower(server.url(), query, token);
    }

    @Test
    void streamsMatchingEventsLiveAndReplaysFromAnId() throws Exception {
        try (EventFollower hosts = follow("?tag=drover/inventory/host/*", server.adminToken())) {
            await().atMost(Duration.ofSeconds(5)).until(hosts::connected);
            await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(hosts.events::isEmpty);
            server.post("/api/v1/sets", server.adminToken(), Map.of("bk_biz_id", 2, "bk_set_name", "not-a-host"));
            server.post("/api/v1/hosts", server.adminToken(), Map.of("bk_biz_id", 2, "bk_host_innerip", "10.5.5.5"));
            await().atMost(Duration.ofSeconds(5)).until(() -> hosts.events.size() == 1);
            JsonNode event = hosts.events.getFirst();
            assertThat(event.path("tag").asText()).isEqualTo("drover/inventory/host/created");
            assertThat(event.at("/data/after/bk_host_innerip").asText()).isEqualTo("10.5.5.5");
            assertThat(event.at("/data/before").isNull() || event.at("/data/before").isMissingNode()).isTrue();
        }
        try (EventFollower replay = follow("?since=0&tag=drover/inventory/business/*", server.adminToken())) {
            await().atMost(Duration.ofSeconds(5)).until(() -> replay.events.size() == 2);
            assertThat(replay.events).extracting(e -> e.at("/data/id").asLong()).containsExactly(2L, 7L);
        }
    }

    @Test
    void peersEventsArrivingOutOfIdOrderAreAllStreamed() throws Exception {
        // the servers of a cluster take ids from one sequence and deliver their events independently: a stream sees
        // a peer's event with a lower id after one of its own server's
        try (EventFollower peers = follow("?tag=test/peer/*", server.adminToken())) {
            await().atMost(Duration.ofSeconds(5)).until(peers::connected);
            EventBus bus = server.server().bus();
            bus.publishFromPeer(new io.drover.model.events.Event(1_000_010, "test/peer/a", null, Map.of("n", 1)));
            bus.publishFromPeer(new io.drover.model.events.Event(1_000_005, "test/peer/b", null, Map.of("n", 2)));
            bus.publishFromPeer(new io.drover.model.events.Event(1_000_007, "test/peer/c", null, Map.of("n", 3)));
            await().atMost(Duration.ofSeconds(5)).until(() -> peers.events.size() == 3);
            assertThat(peers.events).extracting(e -> e.path("tag").asText()).containsExactly("test/peer/a", "test/peer/b", "test/peer/c");
        }
    }

    @Test
    void aBusinessScopedTokenSeesOnlyItsBusinessesEvents() throws Exception {
        String shop = server.post("/api/v1/tokens", server.adminToken(), Map.of("name", "shop-viewer", "role", "viewer",
                "bk_biz_ids", List.of(2))).body().path("token").asText();
        try (EventFollower scoped = follow("?since=0&tag=drover/inventory/business/*", shop)) {
            await().atMost(Duration.ofSeconds(5)).until(() -> !scoped.events.isEmpty());
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
                    .until(() -> scoped.events.stream().allMatch(e -> e.at("/data/bk_biz_id").asLong() == 2L));
        }
    }

    @Test
    void aBadGlobOrSinceIsRejectedBeforeStreaming() {
        assertThat(server.get("/api/v1/events?since=-4", server.adminToken()).status()).isEqualTo(422);
        assertThat(server.get("/api/v1/events", null).status()).isEqualTo(401);
    }
}
