package io.drover.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.model.Json;
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
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The fleet load tool: N simulated agents in one JVM, each a real {@link SaltMinion} (its own two connections,
 * sign-in, publish checks, returns) answering test.ping, against a running server. Their connections speak ZMTP
 * through {@link ZmtpMinionTransport} on shared selector loops: one thread per agent, as ZeroMQ sockets need, would
 * leave two cores little time for the server being measured. With {@code --ping ROUNDS} it then times
 * {@code test.ping} to all of them through the REST API, every return collected.
 *
 * <p>Usage: {@code FleetLoad --server URL --token-file FILE --master HOST:PORT --count N [--prefix sim-] [--ping 20]
 * [--warmup 3] [--interval SECONDS] [--target GLOB --expect TOTAL] [--ramp 50] [--io-threads 1] [--await-file PATH] [--hold-file PATH]}: agents start in batches of {@code ramp}, each once most
 * of the previous batch signed in. An agent costs two open files, so one process holds up to about 9,000 within a
 * 20,000 open-file limit; to spread the load, run several (without --ping) and let one of them ping the whole fleet
 * with --target and --expect. With {@code --restart-command CMD} the pinger then runs CMD (which restarts the server
 * and returns once it answers), waits until every agent of the fleet signed in again, and times
 * {@code --cold-rounds} (default 2) more rounds: the server's first jobs after a start, with a fleet whose own code is
 * warm, as after a restart of a real server. With {@code --await-file PATH} the rounds start only once PATH exists: for
 * a sign-in storm, where the other processes start at the same moment and the script says when all are connected.
 * With {@code --hold-file PATH} the pinger keeps its agents connected after the rounds until PATH exists, so that a
 * script reading the server's CPU over the rounds does not count their disconnection.
 * The agents share one RSA key (generating thousands takes minutes on two cores); the server's auto-accept must
 * cover the prefix, e.g. {@code drover server --auto-accept 'sim-*'}.
 */
public final class FleetLoad {
    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            opts.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        int count = Integer.parseInt(opts.getOrDefault("count", "100"));
        String prefix = opts.getOrDefault("prefix", "sim-");
        String[] master = opts.getOrDefault("master", "127.0.0.1:4506").split(":");
        int rounds = Integer.parseInt(opts.getOrDefault("ping", "0"));
        RSAPrivateCrtKey key = (RSAPrivateCrtKey) RsaKeys.generate().getPrivate();
        // The agents' sockets are served by --io-threads selector loops (default 1), not by a thread per socket.
        ZmtpLoop[] loops = new ZmtpLoop[Integer.parseInt(opts.getOrDefault("io-threads", "1"))];
        for (int i = 0; i < loops.length; i++) {
            loops[i] = new ZmtpLoop("zmtp-" + i);
        }

        // --functions ROOT: each agent runs the real agent functions under ROOT/<id> (process start simulated) and
        // reports the address --ip-base.<i/250>.<i%250+1>, so that a server with --agent-biz links it to that host.
        Path functionsRoot = opts.containsKey("functions") ? Path.of(opts.get("functions")) : null;
        java.util.concurrent.ExecutorService jobs = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor();
        long start = System.nanoTime();
        List<SaltMinion> fleet = new ArrayList<>(count);
        int ramp = Integer.parseInt(opts.getOrDefault("ramp", "50"));
        SharedPortTable portTable = new SharedPortTable();
        for (int i = 0; i < count; i++) {
            if (i > 0 && i % ramp == 0) {
                // Ramp up: a batch signs in before the next starts, so thousands of agents do not retry in a storm.
                while (fleet.stream().filter(m -> m.state() == SaltMinion.State.CONNECTED).count() < i - ramp / 2) {
                    Thread.sleep(50);
                }
            }
            String id = prefix + i;
            MinionConfig config = MinionConfig.of(id, master[0], 4505, Integer.parseInt(master[1]))
                    .withTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(2), Duration.ofSeconds(5));
            if (functionsRoot != null) {
                SimulatedHost host = new SimulatedHost(id, functionsRoot.resolve(id), jobs, portTable);
                SaltMinion minion = new SaltMinion(config, key, null, Targets.byId(id), host::handle, pem -> { },
                        new ZmtpMinionTransport(config, loops[i % loops.length]));
                host.attach(minion);
                fleet.add(minion);
                continue;
            }
            fleet.add(new SaltMinion(config, key, null, Targets.byId(id), (minion, load) -> {
                long in = System.currentTimeMillis();
                FIRST_IN.accumulateAndGet(in, Math::min);
                LAST_IN.accumulateAndGet(in, Math::max);
                PublishLoad job = PublishLoad.fromWire(load);
                minion.sendReturn(JobReturn.of(job.jid(), job.fun(), job.arg(), true, 0));
                LAST_OUT.accumulateAndGet(System.currentTimeMillis(), Math::max);
            }, pem -> { }, new ZmtpMinionTransport(config, loops[i % loops.length])));
        }
        while (fleet.stream().anyMatch(m -> m.state() != SaltMinion.State.CONNECTED)) {
            Thread.sleep(200);
        }
        System.out.printf(Locale.ROOT, "%d agents connected in %.1f s%n", count, (System.nanoTime() - start) / 1e9);
        if (opts.containsKey("ip-base")) {
            for (int i = 0; i < fleet.size(); i++) {
                String ip = opts.get("ip-base") + "." + (i / 250) + "." + (i % 250 + 1);
                fleet.get(i).fireEvent("drover/agent/" + fleet.get(i).id() + "/heartbeat", Map.of("version", "load",
                        "interval", 3600, "grains", Map.of("id", fleet.get(i).id(), "drover_innerip", ip, "kernel", "Linux")));
            }
            System.out.println("heartbeats sent with addresses " + opts.get("ip-base") + ".x.y");
        }
        if (rounds > 0) {
            ping(opts.get("server"), Files.readString(Path.of(opts.get("token-file"))).strip(),
                    opts.getOrDefault("target", prefix + "*"), rounds, Integer.parseInt(opts.getOrDefault("warmup", "3")),
                    Integer.parseInt(opts.getOrDefault("expect", "" + count)),
                    Duration.ofSeconds(Long.parseLong(opts.getOrDefault("interval", "0"))), opts.get("restart-command"),
                    Integer.parseInt(opts.getOrDefault("cold-rounds", "2")), fleet, opts.get("await-file"));
            if (opts.containsKey("hold-file")) {
                // the script reads the servers' CPU before this process's agents disconnect: their going away (thousands
                // of connections closed, presence written) is not part of a round
                while (!Files.exists(Path.of(opts.get("hold-file")))) {
                    Thread.sleep(100);
                }
            }
            System.exit(0); // closing thousands of minions one by one takes longer than the run; exiting closes their sockets
        }
        Thread.currentThread().join();
    }

    static final java.util.concurrent.atomic.AtomicLong FIRST_IN = new java.util.concurrent.atomic.AtomicLong(Long.MAX_VALUE);
    static final java.util.concurrent.atomic.AtomicLong LAST_IN = new java.util.concurrent.atomic.AtomicLong();
    static final java.util.concurrent.atomic.AtomicLong LAST_OUT = new java.util.concurrent.atomic.AtomicLong();

    private static void ping(String server, String token, String target, int rounds, int warmup, int expected,
                             Duration interval, String restartCommand, int coldRounds, List<SaltMinion> fleet,
                             String awaitFile) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        if (awaitFile != null) {
            // a sign-in storm: the other processes started with this one, and the script that started them creates
            // this file once every one of them has all its agents connected
            while (!Files.exists(Path.of(awaitFile))) {
                Thread.sleep(100);
            }
        }
        List<Double> times = new ArrayList<>();
        int complete = 0;
        for (int round = 0; round < rounds + warmup; round++) {
            long t0 = System.nanoTime();
            int returned = round(http, server, token, target, expected, round, round < warmup ? " (warm-up)" : "");
            if (round >= warmup) {
                times.add((System.nanoTime() - t0) / 1e9);
                complete += returned == expected ? 1 : 0;
            }
            long rest = t0 + interval.toNanos() - System.nanoTime();
            if (rest > 0) {
                Thread.sleep(rest / 1_000_000);
            }
        }
        System.out.printf(Locale.ROOT, "rounds with every return: %d of %d%n", complete, rounds);
        double[] sorted = times.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        double median = sorted[sorted.length / 2];
        System.out.printf(Locale.ROOT, "test.ping to %d agents, every return collected: median %.3f s, p90 %.3f s, max %.3f s%n",
                expected, median, sorted[(int) Math.ceil(sorted.length * 0.9) - 1], sorted[sorted.length - 1]);
        System.out.println(Arrays.toString(sorted));
        if (restartCommand == null) {
            return;
        }
        long restart = System.nanoTime();
        java.time.OffsetDateTime restarted = java.time.OffsetDateTime.now();
        Process process = new ProcessBuilder("sh", "-c", restartCommand).inheritIO().start();
        if (process.waitFor() != 0) {
            throw new IllegalStateException("the restart command failed: " + restartCommand);
        }
        System.out.printf(Locale.ROOT, "server restarted and ready in %.1f s%n", (System.nanoTime() - restart) / 1e9);
        if (awaitFile != null) {
            // A storm's restart: how long until every agent answers again, by test.ping rounds of 5 s each (an agent
            // the registry still shows online from before the restart counts only once it answered).
            for (int round = 0; System.nanoTime() - restart < 600_000_000_000L; round++) {
                if (round(http, server, token, target, expected, round, " (after the restart)", Duration.ofSeconds(5)) == expected) {
                    System.out.printf(Locale.ROOT, "every agent answered test.ping again %.1f s after the restart (round %d)%n",
                            (System.nanoTime() - restart) / 1e9, round);
                    return;
                }
            }
            System.out.println("not every agent answered within 10 minutes of the restart");
            return;
        }
        // Agents sign in again by themselves once their server goes away (the new one has a new session key); the
        // rounds start when every agent is online and was seen by the new server, with no job sent before them.
        long online = awaitOnline(http, server, token, expected, restarted, fleet, restart);
        System.out.printf(Locale.ROOT, "%d agents online again %.1f s after the restart%n", online, (System.nanoTime() - restart) / 1e9);
        for (int round = 0; round < coldRounds; round++) {
            long t0 = System.nanoTime();
            round(http, server, token, target, expected, round, " (after the restart)");
            double seconds = (System.nanoTime() - t0) / 1e9;
            System.out.printf(Locale.ROOT, "cold round %d: %.3f s, %.2f× the warm median%n", round, seconds, seconds / median);
        }
    }

    /**
     * Waits (up to 10 minutes) until {@code expected} agents are online and were seen by the server after {@code since},
     * and every agent of this process is connected; how many were online at the end.
     */
    private static long awaitOnline(HttpClient http, String server, String token, int expected, java.time.OffsetDateTime since,
                                    List<SaltMinion> fleet, long startNanos) throws Exception {
        long online;
        do {
            Thread.sleep(1_000);
            HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create(server + "/api/v1/agents"))
                    .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() != 200) {
                throw new IllegalStateException("GET /api/v1/agents answered " + answer.statusCode() + ": " + answer.body());
            }
            JsonNode agents = Json.json().readTree(answer.body());
            online = 0;
            for (JsonNode agent : agents) {
                String seen = agent.path("last_seen").asText("");
                online += agent.path("online").asBoolean() && !seen.isEmpty()
                        && java.time.OffsetDateTime.parse(seen).isAfter(since) ? 1 : 0;
            }
        } while ((online < expected || fleet.stream().anyMatch(m -> m.state() != SaltMinion.State.CONNECTED))
                && System.nanoTime() - startNanos < 600_000_000_000L);
        return online;
    }

    /** One test.ping to the target, until every return is stored or 30 s passed; the returns stored. */
    private static int round(HttpClient http, String server, String token, String target, int expected, int round, String note)
            throws Exception {
        return round(http, server, token, target, expected, round, note, Duration.ofSeconds(30));
    }

    private static int round(HttpClient http, String server, String token, String target, int expected, int round, String note,
                             Duration timeout) throws Exception {
        long t0 = System.nanoTime();
        long w0 = System.currentTimeMillis();
        FIRST_IN.set(Long.MAX_VALUE);
        LAST_IN.set(0);
        LAST_OUT.set(0);
        String body = "{\"tgt\":\"" + target + "\",\"fun\":\"test.ping\",\"arg\":[]}";
        JsonNode started = Json.json().readTree(http.send(HttpRequest.newBuilder(URI.create(server + "/api/v1/jobs"))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString()).body());
        String jid = started.path("jid").asText();
        int returned = 0;
        long deadline = t0 + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            long wait = Math.max(1, (deadline - System.nanoTime()) / 1_000_000_000L);
            JsonNode job = Json.json().readTree(http.send(HttpRequest.newBuilder(URI.create(server + "/api/v1/jobs/" + jid + "?wait=" + wait))
                    .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString()).body());
            returned = job.path("returns").size();
            if (job.path("missing").isEmpty() && returned == expected) {
                break;
            }
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        System.out.printf(Locale.ROOT, "round %d: %d/%d returns in %.3f s%s  [minions of this process: first job received +%d ms, last received +%d ms, last return acknowledged +%d ms]%n", round, returned, expected, seconds,
                note, FIRST_IN.get() - w0, LAST_IN.get() - w0, LAST_OUT.get() - w0);
        return returned;
    }
}
