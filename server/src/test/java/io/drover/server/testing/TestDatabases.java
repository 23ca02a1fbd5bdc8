package io.drover.server.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.drover.server.config.ServerConfig;
import io.drover.server.store.Database;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * Databases for tests: a private in-memory H2, or a private schema in the real PostgreSQL at
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

    public static Target h2() {
        String url = "jdbc:h2:mem:t" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1;"
                + ServerConfig.H2_OPTIONS;
        return new Target(url, "", "", () -> {
            try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
                s.execute("SHUTDOWN");
            } catch (SQLException ignored) {
                // already gone
            }
        });
    }

    /** {@code h2} or {@code postgres}: for repository tests that run on both (@ValueSource of the two names). */
    public static Target named(String kind) {
        return switch (kind) {
            case "h2" -> h2();
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
