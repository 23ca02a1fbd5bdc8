package io.drover.bench;

import io.drover.core.match.Glob;
import io.drover.model.jobs.JobRequest;
import io.drover.model.jobs.JobStarted;
import io.drover.server.agents.AgentRegistry;
import io.drover.server.agents.EnrollmentTokenStore;
import io.drover.server.auth.AuditStore;
import io.drover.server.auth.Principal;
import io.drover.server.events.EventBus;
import io.drover.server.events.EventStore;
import io.drover.server.inventory.InventoryStore;
import io.drover.server.inventory.InventoryService;
import io.drover.server.jobs.JobService;
import io.drover.server.keys.KeyStore;
import io.drover.server.ops.Retention;
import io.drover.server.store.Database;
import io.drover.server.store.SecretBox;
import io.drover.transport.crypto.RsaKeys;
import io.drover.transport.envelope.JobReturn;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.interfaces.RSAPublicKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Whether the SQLite file stops growing: days of simulated traffic on the server's own stores under a simulated
 * clock. Every {@code every} minutes a job goes to all agents and each answers it (JobService's group commit, one
 * return event each); every hour each agent fires one stored event and the job's caller leaves an audit entry; every
 * hour the server's {@link Retention} runs as the server runs it. Prints the file's size (drover.db and its WAL) at the
 * end of each simulated day.
 *
 * <pre>bench/run FileSizeBenchmark AGENTS EVERY_MINUTES DAYS RETENTION_DAYS</pre>
 */
public final class FileSizeBenchmark {
    /** One simulated day's end: the rows kept and the file's size. */
    public record Day(int day, long returns, long events, long dbBytes, long walBytes, long seconds) {
        public long totalBytes() {
            return dbBytes + walBytes;
        }
    }

    public record Traffic(int agents, int everyMinutes, int days, int retentionDays) {
    }

    public static void main(String[] args) throws Exception {
        Traffic traffic = new Traffic(args.length > 0 ? Integer.parseInt(args[0]) : 1000,
                args.length > 1 ? Integer.parseInt(args[1]) : 5, args.length > 2 ? Integer.parseInt(args[2]) : 10,
                args.length > 3 ? Integer.parseInt(args[3]) : 3);
        Path dir = Files.createTempDirectory("drover-file-size");
        System.out.printf("%d agents, a job to all every %d min, %d days, events and jobs kept %d days, in %s%n",
                traffic.agents(), traffic.everyMinutes(), traffic.days(), traffic.retentionDays(), dir);
        System.out.println("day  returns kept  events kept  drover.db MiB  -wal MiB  total MiB  wall s");
        simulate(traffic, dir, day -> System.out.printf("%3d  %12d  %11d  %13.1f  %8.1f  %9.1f  %6d%n", day.day(), day.returns(),
                day.events(), mib(day.dbBytes()), mib(day.walBytes()), mib(day.totalBytes()), day.seconds()));
    }

    private static double mib(long bytes) {
        return bytes / (1024.0 * 1024.0);
    }

    /** Runs the traffic on a new database in {@code dir}; reports each day as it ends. */
    public static List<Day> simulate(Traffic traffic, Path dir, java.util.function.Consumer<Day> report) {
        SimulatedClock clock = new SimulatedClock(Instant.parse("2026-01-05T00:00:00Z"));
        Path file = dir.resolve("drover.db");
        List<Day> days = new ArrayList<>();
        long wallStart = System.nanoTime();
        try (Database db = Database.open("jdbc:sqlite:" + file, "", "", 8);
             var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            EventBus bus = new EventBus();
            EventStore events = new EventStore(db.jdbi(), bus, clock);
            AuditStore audit = new AuditStore(db.jdbi(), clock);
            AgentRegistry agents = new AgentRegistry(db.jdbi(), events,
                    new InventoryService(db.jdbi(), new InventoryStore(), events), null, clock);
            KeyStore keys = new KeyStore(db.jdbi(), events, List.of(Glob.compile("sim-*")), new EnrollmentTokenStore(db.jdbi(), clock),
                    agents, () -> { }, clock);
            String key = RsaKeys.publicPem((RSAPublicKey) RsaKeys.generate().getPublic());
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < traffic.agents(); i++) {
                ids.add("sim-" + i);
                keys.decide("sim-" + i, key, null);
            }
            JobService jobs = new JobService(db.jdbi(), events, keys, id -> Map.of(), agents::businesses, Map.of(),
                    (load, minions) -> { }, () -> () -> { }, 1 << 20, SecretBox.of(new byte[32]), clock);
            Retention retention = new Retention(audit, events, jobs, () -> 0, db,
                    new Retention.Days(90, traffic.retentionDays(), traffic.retentionDays()));
            Principal caller = Principal.system("bench");
            int stepsPerHour = 60 / traffic.everyMinutes();
            try {
                for (int day = 1; day <= traffic.days(); day++) {
                    for (int hour = 0; hour < 24; hour++) {
                        for (int step = 0; step < stepsPerHour; step++) {
                            JobStarted started = jobs.start(caller, new JobRequest("sim-*", "glob", "status.loadavg", List.of(), Map.of(), 60));
                            List<Future<Boolean>> answers = new ArrayList<>(ids.size());
                            for (String id : ids) {
                                answers.add(threads.submit(() -> jobs.onReturn(id, JobReturn.fromWire(Map.of("jid", started.jid(), "fun", "status.loadavg",
                                        "return", Map.of("1-min", 0.42, "5-min", 0.37, "15-min", 0.31, "host", id), "retcode", 0)))));
                            }
                            for (Future<Boolean> answer : answers) {
                                answer.get();
                            }
                            audit.record("bench#1", "POST", "/api/v1/jobs", 201, null);
                            clock.advance(Duration.ofMinutes(traffic.everyMinutes()));
                        }
                        List<Map.Entry<String, Map<String, Object>>> fired = new ArrayList<>(ids.size());
                        for (String id : ids) {
                            fired.add(Map.entry("drover/agent/" + id + "/service/checked", Map.of("id", id, "service", "nginx", "ok", true)));
                        }
                        db.jdbi().useTransaction(h -> events.appendAll(h, fired));
                        events.publishPending();
                        retention.run();
                    }
                    long returns = db.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM job_agent WHERE returned_at IS NOT NULL").mapTo(Long.class).one());
                    long kept = db.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM event_outbox").mapTo(Long.class).one());
                    Day ended = new Day(day, returns, kept, size(file), size(dir.resolve("drover.db-wal")),
                            (System.nanoTime() - wallStart) / 1_000_000_000L);
                    days.add(ended);
                    report.accept(ended);
                }
            } finally {
                jobs.close();
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return days;
    }

    private static long size(Path file) {
        try {
            return Files.exists(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A clock that moves only when the simulation moves it. */
    static final class SimulatedClock extends Clock {
        private volatile Instant now;

        SimulatedClock(Instant start) {
            this.now = start;
        }

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
