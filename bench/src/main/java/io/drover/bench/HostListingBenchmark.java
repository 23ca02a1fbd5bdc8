package io.drover.bench;

import io.drover.model.api.Page;
import io.drover.model.inventory.Host;
import io.drover.server.inventory.InventoryStore;
import io.drover.server.inventory.TopoFilter;
import io.drover.server.store.Database;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.Supplier;
import org.jdbi.v3.core.statement.PreparedBatch;

/**
 * How long listing every host under a module of 100,000 hosts (and under its business) takes, on the embedded SQLite
 * file database and on PostgreSQL. Seeds: business 1 with module 11 (100,000 hosts) and module 12 (10,000 hosts),
 * business 2 with 50,000 hosts; every host has a few attributes. Prints the median and p90 of the timed runs.
 *
 * <p>Usage: {@code HostListingBenchmark sqlite|postgres [hostsInModule] [runs]}; PostgreSQL from
 * {@code DROVER_BENCH_PG_URL} (default jdbc:postgresql://127.0.0.1:5432/test, user postgres), in a scratch schema.
 */
public final class HostListingBenchmark {
    private static final int WARMUP = 10;

    public static void main(String[] args) throws Exception {
        String db = args.length > 0 ? args[0] : "sqlite";
        int inModule = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 31;
        String url;
        String user = "";
        Runnable cleanup;
        if (db.equals("postgres")) {
            String base = System.getenv().getOrDefault("DROVER_BENCH_PG_URL", "jdbc:postgresql://127.0.0.1:5432/test");
            user = "postgres";
            String schema = "bench_" + System.nanoTime();
            exec(base, user, "CREATE SCHEMA " + schema);
            url = base + "?currentSchema=" + schema;
            String u = user;
            cleanup = () -> exec(base, u, "DROP SCHEMA " + schema + " CASCADE");
        } else {
            Path dir = Files.createTempDirectory("drover-bench");
            url = "jdbc:sqlite:" + dir.resolve("drover.db");
            cleanup = () -> { };
        }
        try (Database database = Database.open(url, user, "", 4)) {
            long seedStart = System.nanoTime();
            seed(database, inModule);
            System.out.printf(Locale.ROOT, "%s: seeded %,d hosts in %.1f s%n", db, inModule + inModule / 10 + inModule / 2,
                    (System.nanoTime() - seedStart) / 1e9);
            InventoryStore repo = new InventoryStore();
            measure(db + " all hosts under module 11 (" + inModule + ")", runs,
                    () -> database.jdbi().inTransaction(h -> repo.allHosts(h, TopoFilter.module(11))).size());
            measure(db + " all hosts under business 1 (" + (inModule + inModule / 10) + ")", runs,
                    () -> database.jdbi().inTransaction(h -> repo.allHosts(h, TopoFilter.business(1))).size());
            measure(db + " API page: 1,000 hosts under module 11 at offset 50,000 (with total)", runs, () -> {
                Page<Host> page = database.jdbi().withHandle(h -> repo.hosts(h, TopoFilter.module(11), null, inModule / 2, 1000));
                return page.items().size();
            });
        } finally {
            cleanup.run();
        }
    }

    private static void seed(Database database, int inModule) {
        database.jdbi().useTransaction(h -> {
            h.execute("INSERT INTO business (bk_biz_id, bk_biz_name, attributes) VALUES (1, 'bench', '{}'), (2, 'other', '{}')");
            h.execute("INSERT INTO topo_set (bk_set_id, bk_biz_id, bk_set_name) VALUES (1, 1, 'set'), (2, 2, 'set')");
            h.execute("INSERT INTO topo_module (bk_module_id, bk_set_id, bk_biz_id, bk_module_name) VALUES "
                    + "(11, 1, 1, 'big'), (12, 1, 1, 'small'), (21, 2, 2, 'other')");
        });
        long id = 1;
        id = hosts(database, id, inModule, 1, 11);
        id = hosts(database, id, inModule / 10, 1, 12);
        hosts(database, id, inModule / 2, 2, 21);
        database.jdbi().useHandle(h -> h.execute("ANALYZE"));
    }

    private static long hosts(Database database, long firstId, int count, long biz, long module) {
        int chunk = 5_000;
        for (int start = 0; start < count; start += chunk) {
            int from = start;
            int n = Math.min(chunk, count - start);
            database.jdbi().useTransaction(h -> {
                PreparedBatch hosts = h.prepareBatch("INSERT INTO host (bk_host_id, bk_biz_id, bk_host_innerip, bk_cloud_id,"
                        + " bk_host_name, os_type, cpu_arch, attributes, bk_module_ids)"
                        + " VALUES (:id, :biz, :ip, 0, :name, 'linux', 'x86_64', :attrs, :modules)");
                PreparedBatch placements = h.prepareBatch("INSERT INTO host_module (bk_host_id, bk_module_id) VALUES (:id, :module)");
                for (int i = 0; i < n; i++) {
                    long id = firstId + from + i;
                    hosts.bind("id", id).bind("biz", biz).bind("ip", "10." + (id >> 16 & 255) + "." + (id >> 8 & 255) + "." + (id & 255))
                            .bind("name", "host-" + id).bind("modules", Long.toString(module))
                            .bind("attrs", "{\"rack\":\"r" + (id % 40) + "\",\"region\":\"eu-" + (id % 3) + "\",\"env\":\"prod\"}")
                            .add();
                    placements.bind("id", id).bind("module", module).add();
                }
                hosts.execute();
                placements.execute();
            });
        }
        return firstId + count;
    }

    private static void measure(String name, int runs, Supplier<Integer> work) {
        int size = 0;
        for (int i = 0; i < WARMUP; i++) {
            size = work.get();
        }
        double[] ms = new double[runs];
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long allocatedBefore = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < runs; i++) {
            long start = System.nanoTime();
            size = work.get();
            ms[i] = (System.nanoTime() - start) / 1e6;
        }
        long allocatedPerRun = (threads.getCurrentThreadAllocatedBytes() - allocatedBefore) / runs;
        Arrays.sort(ms);
        System.out.printf(Locale.ROOT, "%-75s rows=%,d  median=%.1f ms  p90=%.1f ms  min=%.1f ms  alloc=%.0f MB/run%n",
                name, size, ms[runs / 2], ms[(int) Math.ceil(runs * 0.9) - 1], ms[0], allocatedPerRun / 1e6);
    }

    private static void exec(String url, String user, String sql) {
        try (Connection c = DriverManager.getConnection(url, user, ""); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (Exception e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }
}
