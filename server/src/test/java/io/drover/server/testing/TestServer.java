package io.drover.server.testing;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.model.Json;
import io.drover.server.DroverServer;
import io.drover.server.config.ServerConfig;
import io.drover.server.config.Setting;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** A real server on a random loopback port with its own data directory, and a small HTTP client for it. */
public final class TestServer implements AutoCloseable {
    private final DroverServer server;
    private final String adminToken;
    private final Path dataDir;
    private final Runnable dropDatabase;
    private final HttpClient http;

    private TestServer(DroverServer server, Path dataDir, Runnable dropDatabase) {
        this(server, dataDir, dropDatabase, HttpClient.newHttpClient());
    }

    private TestServer(DroverServer server, Path dataDir, Runnable dropDatabase, HttpClient http) {
        this.server = server;
        this.http = http;
        this.dataDir = dataDir;
        this.dropDatabase = dropDatabase;
        try {
            this.adminToken = Files.readString(dataDir.resolve("admin.token")).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A server with the embedded SQLite database in a temporary data directory. */
    /**
     * Failed authentications are counted per minute of the server's clock (the system's here): a test counting them
     * starts with room left in the minute, so that a new one cannot reset the count halfway (which failed a CI run).
     */
    public static void awaitRoomInTheMinute() {
        org.awaitility.Awaitility.await("room left in this minute").atMost(java.time.Duration.ofSeconds(20))
                .pollInterval(java.time.Duration.ofMillis(200)).until(() -> java.time.Instant.now().getEpochSecond() % 60 < 45);
    }

    public static TestServer start() {
        Path dir = tempDir();
        return new TestServer(DroverServer.start(config(dir, Map.of())), dir, () -> { });
    }

    /** A server on a given data directory (SQLite there) with more settings: to restart a server where it was. */
    public static TestServer start(Path dataDir, Map<Setting, String> more) {
        return new TestServer(DroverServer.start(config(dataDir, more)), dataDir, () -> { });
    }

    /**
     * A server on a given data directory with more settings (tls-cert and tls-key among them) whose client trusts
     * {@code trust}: the CA of the server's certificate.
     */
    public static TestServer start(Path dataDir, Map<Setting, String> more, javax.net.ssl.SSLContext trust) {
        return new TestServer(DroverServer.start(config(dataDir, more)), dataDir, () -> { },
                HttpClient.newBuilder().sslContext(trust).build());
    }

    /** A temporary data directory. */
    public static Path newDataDir() {
        return tempDir();
    }

    /** A free TCP port on loopback (for settings that must stay the same across a restart). */
    public static int freePort() {
        // A port is free only until it is used, and the system may offer the same one again before then: two servers
        // of one test given the same port collide (ClusterFailoverTest met another server's ZMTP greeting on its HTTP
        // port). So a port is handed out once per JVM.
        for (int attempt = 0; attempt < 1000; attempt++) {
            try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                if (HANDED_OUT.add(socket.getLocalPort())) {
                    return socket.getLocalPort();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        throw new IllegalStateException("no free port that was not handed out before");
    }

    private static final java.util.Set<Integer> HANDED_OUT = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** A server on the given database. */
    public static TestServer start(TestDatabases.Target db) {
        Path dir = tempDir();
        return new TestServer(DroverServer.start(config(dir, Map.of(Setting.DB_URL, db.url(), Setting.DB_USER, db.user(),
                Setting.DB_PASSWORD, db.password()))), dir, db.drop());
    }

    public static ServerConfig config(Path dataDir, Map<Setting, String> more) {
        java.util.EnumMap<Setting, String> settings = new java.util.EnumMap<>(Setting.class);
        settings.put(Setting.DATA_DIR, dataDir.toString());
        settings.put(Setting.PORT, "0");
        settings.put(Setting.SALT_PUBLISH_PORT, "0");
        settings.put(Setting.SALT_REQUEST_PORT, "0");
        settings.putAll(more);
        return ServerConfig.defaults().with(settings);
    }

    private static Path tempDir() {
        try {
            return Files.createTempDirectory("drover-test");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public DroverServer server() {
        return server;
    }

    public String url() {
        return server.url();
    }

    public String adminToken() {
        return adminToken;
    }

    public Path dataDir() {
        return dataDir;
    }

    /** A response: status, content type and body parsed as JSON (null node when empty). */
    public record Response(int status, String contentType, JsonNode body, String text, java.net.http.HttpHeaders headers) {
    }

    public Response get(String path, String token) {
        return send(builder(path, token).GET());
    }

    public Response post(String path, String token, Object body) {
        return send(builder(path, token).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json(body))));
    }

    public Response postRaw(String path, String token, String contentType, String body) {
        return send(builder(path, token).header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    public Response put(String path, String token, Object body) {
        return send(builder(path, token).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(json(body))));
    }

    public Response delete(String path, String token) {
        return send(builder(path, token).DELETE());
    }

    private static String json(Object body) {
        if (body instanceof String s) {
            return s;
        }
        try {
            return Json.json().writeValueAsString(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private HttpRequest.Builder builder(String path, String token) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url() + path));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return b;
    }

    private Response send(HttpRequest.Builder builder) {
        try {
            HttpResponse<String> r = http.send(builder.build(), HttpResponse.BodyHandlers.ofString());
            String text = r.body();
            JsonNode body = Json.json().nullNode();
            if (text != null && !text.isEmpty() && (text.startsWith("{") || text.startsWith("["))) {
                body = Json.json().readTree(text);
            }
            return new Response(r.statusCode(), r.headers().firstValue("Content-Type").orElse(""), body, text, r.headers());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        server.close();
        dropDatabase.run();
    }
}
