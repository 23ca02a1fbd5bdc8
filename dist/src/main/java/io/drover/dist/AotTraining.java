package io.drover.dist;

import io.drover.server.DroverServer;
import io.drover.server.config.ServerConfig;
import io.drover.server.config.Setting;
import io.drover.transport.crypto.RsaKeys;
import io.drover.transport.envelope.JobReturn;
import io.drover.transport.envelope.PublishLoad;
import io.drover.transport.minion.MinionConfig;
import io.drover.transport.minion.SaltMinion;
import io.drover.transport.minion.Targets;
import io.drover.transport.minion.ZmtpMinionTransport;
import io.drover.transport.zmtp.ZmtpLoop;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.interfaces.RSAPrivateCrtKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The workload the server's ahead-of-time cache is trained on when the distribution is built
 * ({@code java -XX:AOTCacheOutput=lib/server.aot … io.drover.dist.AotTraining}, JDK 25 and newer): a server on SQLite in a
 * temporary directory, {@value #AGENTS} agents on loopback signing in, {@value #ROUNDS} rounds of {@code test.ping} to
 * all of them through the API, and the API reads an operator makes. The JDK stores the classes it loaded and linked and
 * the profiles of the methods that ran, so a server started with the cache neither loads its classes again nor waits
 * for the JIT to find the publish and return paths hot.
 */
public final class AotTraining {
    static final int AGENTS = 300;
    static final int ROUNDS = 30;

    private AotTraining() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory("drover-aot-training");
        EnumMap<Setting, String> settings = new EnumMap<>(Setting.class);
        settings.put(Setting.DATA_DIR, dir.toString());
        settings.put(Setting.PORT, "0");
        settings.put(Setting.SALT_PUBLISH_PORT, "0");
        settings.put(Setting.SALT_REQUEST_PORT, "0");
        settings.put(Setting.AUTO_ACCEPT, "train-*");
        long start = System.nanoTime();
        List<SaltMinion> agents = new ArrayList<>();
        ZmtpLoop loop = new ZmtpLoop("training-agents");
        DroverServer server = DroverServer.start(ServerConfig.defaults().with(settings));
        try {
            String token = Files.readString(dir.resolve("admin.token")).strip();
            RSAPrivateCrtKey key = (RSAPrivateCrtKey) RsaKeys.generate().getPrivate();
            for (int i = 0; i < AGENTS; i++) {
                MinionConfig config = MinionConfig.of("train-" + i, "127.0.0.1", server.master().publishPort(),
                        server.master().requestPort()).withTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(2), Duration.ofSeconds(5));
                agents.add(new SaltMinion(config, key, null, Targets.byId(config.id()), (minion, load) -> {
                    PublishLoad job = PublishLoad.fromWire(load);
                    minion.sendReturn(JobReturn.of(job.jid(), job.fun(), job.arg(), true, 0));
                }, pem -> { }, new ZmtpMinionTransport(config, loop)));
            }
            long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
            while (agents.stream().anyMatch(a -> a.state() != SaltMinion.State.CONNECTED)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the training agents did not sign in within 3 minutes");
                }
                Thread.sleep(100);
            }
            HttpClient http = HttpClient.newHttpClient();
            String api = server.url() + "/api/v1";
            int complete = 0;
            for (int round = 0; round < ROUNDS; round++) {
                String jid = io.drover.model.Json.json().readTree(send(http, token, "POST", api + "/jobs",
                        "{\"tgt\":\"train-*\",\"fun\":\"test.ping\"}")).path("jid").asText();
                String job = send(http, token, "GET", api + "/jobs/" + jid + "?wait=30", null);
                complete += io.drover.model.Json.json().readTree(job).path("returns").size() == AGENTS ? 1 : 0;
                for (String read : List.of("/agents", "/keys", "/hosts?limit=50", "/subscriptions", "/businesses", "/packages", "/audit")) {
                    send(http, token, "GET", api + read, null);
                }
            }
            System.out.printf("AOT training: %d agents, %d of %d ping rounds complete, %.1f s%n", AGENTS, complete, ROUNDS,
                    (System.nanoTime() - start) / 1e9);
        } finally {
            // the agents first: once the server is gone they would keep trying to sign in
            agents.forEach(SaltMinion::close);
            loop.close();
            server.close();
            delete(dir);
        }
        System.exit(0); // the JDK writes the cache as the process exits; nothing else is left to wait for
    }

    private static String send(HttpClient http, String token, String method, String url, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + token)
                .timeout(Duration.ofSeconds(60));
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    private static void delete(Path dir) throws java.io.IOException {
        try (var files = Files.walk(dir)) {
            for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        }
    }
}
