package io.drover.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import io.drover.agent.amqp.AmqpChannel;
import io.drover.agent.amqp.AmqpSettings;
import io.drover.agent.plans.PlanRunner;
import io.drover.agent.plans.PlanService;
import io.drover.agent.plans.PlanSetup;
import io.drover.agent.plans.SaltStackExecutor;
import io.drover.model.plans.PlanJson;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Execution plan benchmarks. {@code drover}: a Bash-script plan to every agent a target names, through
 * {@code POST /api/v1/plans}, ROUNDS times (with {@code --body simple}, a plan whose Body only returns a parameter,
 * to time the control plane and transport without the hosts' process starts); prints each round (until every result is stored) and the per-host round
 * trips (request sent → that host's result stored). {@code amqp}: PLANS plans published at once to one agent's queue on
 * RabbitMQ, the agent in this process; prints the time until the last result came back and the throughput.
 *
 * <p>Usage: {@code PlanBenchmark drover --server URL --token-file FILE --target GLOB --expect N [--rounds 20] [--warmup 3] [--body script|simple]}
 * or {@code PlanBenchmark amqp [--url amqp://guest:guest@127.0.0.1:5672/%2f] [--plans 1000] --state DIR}.
 * {@code spawn}: this machine's floor for the script part, without Drover: N processes started at once from virtual
 * threads as the agent starts a Bash script ({@code setsid bash s.sh word}, output to a file), ROUNDS times; prints
 * the p50 and max time from a round's start to each process's exit.
 * <p>{@code PlanBenchmark spawn [--count 100] [--rounds 20] --dir DIR}
 */
public final class PlanBenchmark {
    static final Map<String, Object> PLAN = plan();
    private static final ObjectMapper JSON = new ObjectMapper();

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new LinkedHashMap<>();
        for (int i = 1; i + 1 < args.length; i += 2) {
            opts.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        if (args.length > 0 && args[0].equals("amqp")) {
            amqp(opts);
        } else if (args.length > 0 && args[0].equals("spawn")) {
            spawn(opts);
        } else {
            drover(opts);
        }
        System.exit(0);
    }

    static Map<String, Object> plan() {
        Map<String, Object> plan = new LinkedHashMap<>();
        plan.put("FormatVersion", "2.1.0");
        plan.put("Name", "benchmark");
        plan.put("Parameters", Map.of("word", "bench"));
        plan.put("Body", "return s(args.word).stdout");
        plan.put("Scripts", Map.of("s", Map.of("Type", "Bash", "EntryPoint", "f")));
        plan.put("Files", Map.of("f", Map.of("Name", "s.sh", "BodyType", "Text", "Body", "echo \"$1\"\n")));
        return plan;
    }

    static void drover(Map<String, String> opts) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        String server = opts.get("server");
        String token = Files.readString(Path.of(opts.get("token-file"))).strip();
        int expect = Integer.parseInt(opts.get("expect"));
        int rounds = Integer.parseInt(opts.getOrDefault("rounds", "20"));
        int warmup = Integer.parseInt(opts.getOrDefault("warmup", "3"));
        List<Double> roundSeconds = new ArrayList<>();
        List<Double> hostMillis = new ArrayList<>();
        for (int round = 1 - warmup; round <= rounds; round++) {
            Map<String, Object> plan = new LinkedHashMap<>(PLAN);
            if (opts.getOrDefault("body", "script").equals("simple")) {
                plan.put("Body", "return args.word");
            }
            Map<String, Object> request = Map.of("tgt", opts.getOrDefault("target", "*"), "plan", plan, "timeout", 60);
            OffsetDateTime sent = OffsetDateTime.now();
            long start = System.nanoTime();
            JsonNode started = send(http, "POST", server + "/api/v1/plans", token, JSON.writeValueAsString(request));
            String id = started.path("id").asText();
            JsonNode run;
            do {
                run = send(http, "GET", server + "/api/v1/plans/" + id + "?wait=10", token, null);
            } while (run.path("status").asText().equals("RUNNING") && System.nanoTime() - start < 60_000_000_000L);
            double seconds = (System.nanoTime() - start) / 1e9;
            int ok = 0;
            List<Double> hosts = new ArrayList<>();
            for (JsonNode result : run.path("results")) {
                ok += result.path("error_code").asInt() == 0 ? 1 : 0;
                hosts.add((double) java.time.Duration.between(sent, OffsetDateTime.parse(result.path("at").asText())).toMillis());
            }
            if (ok != expect) {
                throw new IllegalStateException("round " + round + ": " + ok + " of " + expect + " hosts succeeded: " + run);
            }
            if (round > 0) {
                roundSeconds.add(seconds);
                hostMillis.addAll(hosts);
                System.out.printf(Locale.ROOT, "round %d: %d results in %.3f s%n", round, ok, seconds);
            }
        }
        System.out.printf(Locale.ROOT, "rounds: median %.3f s, max %.3f s; per-host round trip: p50 %.0f ms, p90 %.0f ms, max %.0f ms%n",
                percentile(roundSeconds, 50), percentile(roundSeconds, 100), percentile(hostMillis, 50), percentile(hostMillis, 90),
                percentile(hostMillis, 100));
    }

    static void spawn(Map<String, String> opts) throws Exception {
        int count = Integer.parseInt(opts.getOrDefault("count", "100"));
        int rounds = Integer.parseInt(opts.getOrDefault("rounds", "20"));
        Path dir = Files.createDirectories(Path.of(opts.get("dir")));
        Path script = Files.writeString(dir.resolve("s.sh"), "echo \"$1\"\n");
        List<String> command = io.drover.agent.plans.ProcessGroups.grouped(List.of("bash", script.toString(), "bench"));
        List<Double> millis = new ArrayList<>();
        try (var threads = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            for (int round = -3; round < rounds; round++) {
                long start = System.nanoTime();
                List<java.util.concurrent.Future<Double>> exits = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    Path out = dir.resolve("out-" + i);
                    exits.add(threads.submit(() -> {
                        new ProcessBuilder(command).redirectOutput(out.toFile()).redirectErrorStream(true)
                                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start().waitFor();
                        return (System.nanoTime() - start) / 1e6;
                    }));
                }
                for (var exit : exits) {
                    double ms = exit.get();
                    if (round >= 0) {
                        millis.add(ms);
                    }
                }
            }
        }
        System.out.printf(Locale.ROOT, "%d script processes at once, no Drover: p50 %.0f ms, max %.0f ms (%d rounds)%n", count,
                percentile(millis, 50), percentile(millis, 100), rounds);
    }

    static void amqp(Map<String, String> opts) throws Exception {
        String url = opts.getOrDefault("url", "amqp://guest:guest@127.0.0.1:5672/%2f");
        int plans = Integer.parseInt(opts.getOrDefault("plans", "1000"));
        Path state = Path.of(opts.get("state"));
        String suffix = Long.toString(System.nanoTime(), 36);
        String input = "bench-plans-" + suffix;
        String results = "bench-results-" + suffix;
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(url);
        try (Connection connection = factory.newConnection(); Channel channel = connection.createChannel()) {
            channel.queueDeclare(input, true, false, true, null);
            channel.queueDeclare(results, true, false, true, null);
            PlanService service = new PlanService(new PlanSetup(state, state, PlanService.installBootstrap(state),
                    PlanService.findPython(), "bench", (p, s) -> {
                        throw new java.io.IOException("no fileserver");
                    }, Clock.systemUTC(), PlanRunner.DEFAULT_TIMEOUT), (f, a) -> new SaltStackExecutor.Reply(null, 254));
            try (AmqpChannel agent = new AmqpChannel(new AmqpSettings(url, input, "", results, false, null, true, null, null, null, null), service, state,
                    Clock.systemUTC())) {
                while (!agent.connected()) {
                    Thread.sleep(50);
                }
                long start = System.nanoTime();
                for (int i = 0; i < plans; i++) {
                    Map<String, Object> plan = new LinkedHashMap<>(PLAN);
                    plan.put("ID", "bench-" + i);
                    channel.basicPublish("", input, new AMQP.BasicProperties.Builder().messageId("bench-" + i).deliveryMode(2).build(),
                            PlanJson.write(plan).getBytes(StandardCharsets.UTF_8));
                }
                int received = 0;
                int failed = 0;
                while (received < plans) {
                    GetResponse r = channel.basicGet(results, true);
                    if (r == null) {
                        Thread.sleep(5);
                        continue;
                    }
                    received++;
                    Map<?, ?> body = (Map<?, ?>) PlanJson.read(r.getBody());
                    failed += Integer.valueOf(0).equals(body.get("ErrorCode")) ? 0 : 1;
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                System.out.printf(Locale.ROOT, "%d plans through AMQP to one agent: %d results (%d failed) in %.1f s: %.0f plans/s%n",
                        plans, received, failed, seconds, plans / seconds);
            }
        }
    }

    static JsonNode send(HttpClient http, String method, String url, String token, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json");
        request.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() >= 300) {
            throw new IllegalStateException(method + " " + url + ": " + response.statusCode() + " " + response.body());
        }
        return JSON.readTree(response.body());
    }

    static double percentile(List<Double> values, int p) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int index = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(index, sorted.size() - 1)));
    }
}
