package io.drover.server.testing;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.model.Json;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Follows a server's event stream ({@code GET /api/v1/events?…}) on a background thread, collecting each event's JSON. */
public final class EventFollower implements AutoCloseable {
    public final List<JsonNode> events = new CopyOnWriteArrayList<>();
    private final Thread thread;
    private volatile InputStream body;
    /** The TLS session the stream runs in, once connected over HTTPS. */
    public volatile javax.net.ssl.SSLSession session;

    public EventFollower(String serverUrl, String query, String token) {
        this(HttpClient.newHttpClient(), serverUrl, query, token);
    }

    public EventFollower(HttpClient client, String serverUrl, String query, String token) {
        thread = Thread.ofVirtual().start(() -> {
            try {
                HttpResponse<InputStream> r = client.send(HttpRequest.newBuilder(
                                URI.create(serverUrl + "/api/v1/events" + query))
                        .header("Authorization", "Bearer " + token).header("Accept", "text/event-stream").build(),
                        HttpResponse.BodyHandlers.ofInputStream());
                session = r.sslSession().orElse(null);
                body = r.body();
                BufferedReader reader = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
                String line;
                while ((line = reader.readLine()) != null) {
                    if (line.startsWith("data:")) {
                        events.add(Json.json().readTree(line.substring(5).strip()));
                    }
                }
            } catch (Exception ignored) {
                // closed by the test
            }
        });
    }

    /** True once the server answered and the stream is open. */
    public boolean connected() {
        return body != null;
    }

    public List<String> tags() {
        return events.stream().map(e -> e.path("tag").asText()).toList();
    }

    @Override
    public void close() throws Exception {
        if (body != null) {
            body.close();
        }
        thread.interrupt();
    }
}
