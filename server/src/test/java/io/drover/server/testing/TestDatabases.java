package io.drover.server.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.drover.server.store.Database;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * Databases for tests: a private SQLite file, or a private schema in the real PostgreSQL at
 * {@code $DROVER_TEST_PG_URL} (default {@code jdbc:postgresql://127.0.0.1:5432/test}, user postgres).
 * Without PostgreSQL the PostgreSQL tests are skipped, except under CI ({@code CI} set), where they fail.
 */
public final class TestDatabases {
    public static final String PG_URL = System.getenv().getOrDefault("DROVER_TEST_PG_URL",
            "jdbc:postgresql://127.0.0.1:5432/test");
    public static final String PG_USER = System.getenv().getOrDefault("DROVER_TEST_PG_USER", "postgres");
    public static final String PG_PASSWORD = System.getenv().getOrDefault("DROVER_TEST_PG_PASSWORD", "");

    private TestDatabases() {
    }

    /** A JDBC URL (plus user/password) for a fresh, empty database. */
    public record Target(String url, String user, String password, Runnable drop) {
        public Database open() {
            return Database.open(url, user, password, 8);
        }
    }

    /** A fresh SQLite database in a temporary file, deleted (with its WAL and lock files) by {@code drop}. */
    public static Target sqlite() {
        Path dir;
        try {
            dir = Files.createTempDirectory("drover-sqlite");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Target("jdbc:sqlite:" + dir.resolve("drover.db"), "", "", () -> deleteTree(dir));
    }

    private static void deleteTree(Path dir) {
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory left behind
        }
    }

    /** {@code sqlite} or {@code postgres}: for repository tests that run on both (@ValueSource of the two names). */
    public static Target named(String kind) {
        return switch (kind) {
            case "sqlite" -> sqlite();
            case "postgres" -> postgres();
            default -> throw new IllegalArgumentException("no test database '" + kind + "'");
        };
    }

    /** Runs {@code test} on a fresh, migrated database of that kind, then drops it. */
    public static void on(String kind, java.util.function.Consumer<io.drover.server.store.Database> test) {
        Target target = named(kind);
        io.drover.server.store.Database db = target.open();
        try {
            test.accept(db);
        } finally {
            db.close();
            target.drop().run();
        }
    }

    /** A fresh schema in the real PostgreSQL; skipped (or, under CI, failed) when PostgreSQL is not reachable. */
    public static Target postgres() {
        requirePostgres();
        String schema = "t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        execute("CREATE SCHEMA " + schema);
        String url = PG_URL + (PG_URL.contains("?") ? "&" : "?") + "currentSchema=" + schema;
        return new Target(url, PG_USER, PG_PASSWORD, () -> execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE"));
    }

    public static void requirePostgres() {
        boolean reachable = postgresReachable();
        if (!reachable && System.getenv("CI") != null) {
            throw new IllegalStateException("CI is set but PostgreSQL is not reachable at " + PG_URL
                    + " as " + PG_USER + "; the PostgreSQL tests must run in CI");
        }
        assumeTrue(reachable, "PostgreSQL is not reachable at " + PG_URL);
    }

    private static boolean postgresReachable() {
        try (Connection c = DriverManager.getConnection(PG_URL, PG_USER, PG_PASSWORD)) {
            return c.isValid(2);
        } catch (SQLException e) {
            return false;
        }
    }

    private static void execute(String sql) {
        try (Connection c = DriverManager.getConnection(PG_URL, PG_USER, PG_PASSWORD); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot run '" + sql + "' on " + PG_URL + ": " + e.getMessage(), e);
        }
    }
}
