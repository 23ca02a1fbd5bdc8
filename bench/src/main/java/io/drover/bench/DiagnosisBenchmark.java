package io.drover.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Diagnosis benchmarks against a running server whose hosts 1…N have agents. {@code concurrent}: one request starts
 * the host-overview set (three scripts each) on N hosts at once; the time until every diagnosis ended, ROUNDS times.
 * {@code alerts}: RATE alerts per second for SECONDS seconds through {@code POST /api/v1/alerts}, in requests of 10
 * alerts as Alertmanager batches them, over N distinct alerts (one per host): the first of each starts a diagnosis
 * (a one-node set running {@code true}), every later one is a repeat within the repeat interval; prints the
 * latency percentiles of the requests and the rate reached, after WARMUP seconds of the same with other alerts.
 *
 * <p>Usage: {@code DiagnosisBenchmark concurrent|alerts --server URL --token-file FILE --hosts N [--rounds 3]
 * [--rate 1000] [--seconds 10] [--warmup 5]}.
 */
public final class DiagnosisBenchmark {
    private static final ObjectMapper JSON = new ObjectMapper();

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new LinkedHashMap<>();
        for (int i = 1; i + 1 < args.length; i += 2) {
            opts.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        DiagnosisBenchmark bench = new DiagnosisBenchmark(opts.get("server"), Files.readString(Path.of(opts.get("token-file"))).strip());
        int hosts = Integer.parseInt(opts.getOrDefault("hosts", "100"));
        if (args[0].equals("alerts")) {
            int rate = Integer.parseInt(opts.getOrDefault("rate", "1000"));
            bench.setUpAlerts();
            bench.alerts(hosts, rate, Integer.parseInt(opts.getOrDefault("warmup", "5")), 9101, false);
            bench.alerts(hosts, rate, Integer.parseInt(opts.getOrDefault("seconds", "10")), 9100, true);
        } else {
            bench.concurrent(hosts, Integer.parseInt(opts.getOrDefault("rounds", "3")));
        }
        System.exit(0);
    }

    private final HttpClient http = HttpClient.newHttpClient();
    private final String server;
    private final String token;

    DiagnosisBenchmark(String server, String token) {
        this.server = server;
        this.token = token;
    }

    void concurrent(int hosts, int rounds) throws Exception {
        List<Long> ids = new ArrayList<>();
        for (int i = 1; i <= hosts; i++) {
            ids.add((long) i);
        }
        for (int round = 1; round <= rounds; round++) {
            long start = System.nanoTime();
            JsonNode started = send("POST", "/api/v1/diagnoses", Map.of("kind", "Diagnosis", "metadata", Map.of("name", "bench-" + round),
                    "spec", Map.of("operationSet", "host-overview", "hosts", ids)));
            List<String> mine = new ArrayList<>();
            started.path("diagnoses").forEach(d -> mine.add(d.path("id").asText()));
            int succeeded = 0;
            for (String id : mine) {
                JsonNode d;
                do {
                    d = send("GET", "/api/v1/diagnoses/" + id + "?wait=30", null);
                } while (!d.path("phase").asText().matches("Succeeded|Failed"));
                succeeded += d.path("phase").asText().equals("Succeeded") ? 1 : 0;
            }
            System.out.printf(Locale.ROOT, "round %d: %d diagnoses (3 operations each) on %d hosts, %d succeeded, all ended in %.2f s%n",
                    round, mine.size(), hosts, succeeded, (System.nanoTime() - start) / 1e9);
        }
    }

    void setUpAlerts() throws Exception {
        send("PUT", "/api/v1/diagnosis/operations/bench-noop", Map.of("kind", "Operation", "spec",
                Map.of("processor", Map.of("scriptRunner", Map.of("script", "true")))));
        send("PUT", "/api/v1/diagnosis/operation-sets/bench-noop", Map.of("kind", "OperationSet", "spec", Map.of("adjacencyList",
                List.of(Map.of("id", 0, "to", List.of(1)), Map.of("id", 1, "operation", "bench-noop")))));
        send("PUT", "/api/v1/diagnosis/triggers/bench", Map.of("kind", "Trigger", "spec", Map.of("operationSet", "bench-noop",
                "sourceTemplate", Map.of("prometheusAlertTemplate", Map.of("regexp", Map.of("alertName", "^BenchDown$"),
                        "nodeNameReferenceLabel", "instance")))));
    }

    /** RATE alerts a second for SECONDS, one distinct alert per host (instance host:PORT); prints the figures when {@code report}. */
    void alerts(int hosts, int rate, int seconds, int port, boolean report) throws Exception {
        int perRequest = 10;
        int requests = rate * seconds / perRequest;
        long intervalNanos = 1_000_000_000L * perRequest / rate;
        ConcurrentLinkedQueue<Double> latencies = new ConcurrentLinkedQueue<>();
        List<CompletableFuture<?>> pending = new ArrayList<>();
        int[] started = new int[1];
        int[] repeated = new int[1];
        long begin = System.nanoTime();
        for (int r = 0; r < requests; r++) {
            long due = begin + r * intervalNanos;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            }
            List<Map<String, Object>> alerts = new ArrayList<>();
            for (int a = 0; a < perRequest; a++) {
                int host = (r * perRequest + a) % hosts + 1;
                alerts.add(Map.of("status", "firing", "labels", Map.of("alertname", "BenchDown", "instance", "10.50.0." + host + ":" + port)));
            }
            HttpRequest request = HttpRequest.newBuilder(URI.create(server + "/api/v1/alerts")).header("Authorization", "Bearer " + token)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(Map.of("version", "4", "alerts", alerts)))).build();
            long sent = System.nanoTime();
            pending.add(http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).thenAccept(response -> {
                latencies.add((System.nanoTime() - sent) / 1e6);
                try {
                    JsonNode receipt = JSON.readTree(response.body());
                    synchronized (started) {
                        started[0] += receipt.path("started").size();
                        repeated[0] += receipt.path("repeated").asInt();
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(response.statusCode() + " " + response.body(), e);
                }
            }));
        }
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
        if (!report) {
            return;
        }
        double elapsed = (System.nanoTime() - begin) / 1e9;
        List<Double> sorted = new ArrayList<>(latencies);
        Collections.sort(sorted);
        System.out.printf(Locale.ROOT, "%d alerts in %d requests of %d over %.2f s (%.0f alerts/s): %d diagnoses started, %d repeats; "
                        + "request latency p50 %.1f ms, p99 %.1f ms, max %.1f ms%n", requests * perRequest, requests, perRequest, elapsed,
                requests * perRequest / elapsed, started[0], repeated[0], percentile(sorted, 0.50), percentile(sorted, 0.99),
                sorted.get(sorted.size() - 1));
    }

    static double percentile(List<Double> sorted, double p) {
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p * sorted.size()) - 1));
    }

    JsonNode send(String method, String path, Object body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server + path)).header("Authorization", "Bearer " + token);
        if (body != null) {
            request.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
        } else {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() >= 300) {
            throw new IllegalStateException(method + " " + path + ": " + response.statusCode() + " " + response.body());
        }
        return JSON.readTree(response.body());
    }
}
