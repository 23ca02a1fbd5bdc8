package io.drover.server.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.jdbi.v3.core.Jdbi;

/** The connection pool, the schema migrations and the Jdbi handle factory for one database. */
public final class Database implements AutoCloseable {
    /** How long a SQLite statement waits for the write lock another connection holds before it fails. */
    static final int SQLITE_BUSY_TIMEOUT_MILLIS = 30_000;

    private final HikariDataSource dataSource;
    private final Jdbi jdbi;
    private final Dialect dialect;
    /** The claim on the SQLite file; null on PostgreSQL. */
    private final SqliteFile claimed;

    private Database(HikariDataSource dataSource, Dialect dialect, SqliteFile claimed) {
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.claimed = claimed;
        this.jdbi = Jdbi.create(dataSource);
        if (dialect == Dialect.SQLITE) {
            jdbi.registerArgument(new SqlTime.AsText());
        }
    }

    /** Opens the pool and migrates the schema to the newest version; SQLite syncs as {@link SqliteSync#NORMAL}. */
    public static Database open(String url, String user, String password, int poolSize) {
        return open(url, user, password, poolSize, SqliteSync.NORMAL);
    }

    /** Opens the pool and migrates the schema to the newest version. */
    public static Database open(String url, String user, String password, int poolSize, SqliteSync sync) {
        Dialect dialect = Dialect.of(url);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        if (user != null && !user.isEmpty()) {
            config.setUsername(user);
        }
        if (password != null && !password.isEmpty()) {
            config.setPassword(password);
        }
        config.setMaximumPoolSize(poolSize);
        SqliteFile claimed = dialect == Dialect.SQLITE ? SqliteFile.claim(SqliteFile.of(url)) : null;
        if (dialect == Dialect.POSTGRESQL) {
            // batched INSERTs go to PostgreSQL as multi-row statements (job returns: one statement per 128 rows)
            config.addDataSourceProperty("reWriteBatchedInserts", "true");
        } else {
            try {
                prepareSqliteFile(url);
            } catch (RuntimeException e) {
                release(claimed);
                throw e;
            }
            // WAL: readers never wait for the writer. A transaction takes the write lock at BEGIN (IMMEDIATE), so
            // two transactions that read then write cannot both hold a snapshot and fail on the upgrade; statements
            // wait for the lock up to the busy timeout. synchronous NORMAL in WAL mode writes every commit to the
            // WAL file before it returns, so a killed process loses nothing acknowledged; FULL also syncs each commit
            // to the disk, for power loss (docs/reliability.md).
            config.addDataSourceProperty("journal_mode", "WAL");
            config.addDataSourceProperty("synchronous", sync.name());
            config.addDataSourceProperty("foreign_keys", "true");
            config.addDataSourceProperty("busy_timeout", String.valueOf(SQLITE_BUSY_TIMEOUT_MILLIS));
            config.addDataSourceProperty("transaction_mode", "IMMEDIATE");
            config.addDataSourceProperty("case_sensitive_like", "true");
            // the WAL file shrinks back to this after a checkpoint instead of keeping its largest size
            config.addDataSourceProperty("journal_size_limit", String.valueOf(64L << 20));
        }
        config.setPoolName("drover-db");
        config.setConnectionTimeout(dialect == Dialect.SQLITE ? SQLITE_BUSY_TIMEOUT_MILLIS : 10_000);
        config.setInitializationFailTimeout(10_000);
        HikariDataSource dataSource;
        try {
            dataSource = new HikariDataSource(config);
        } catch (RuntimeException e) {
            release(claimed);
            throw e;
        }
        try {
            Flyway.configure().dataSource(dataSource).locations(dialect.migrations()).load().migrate();
        } catch (RuntimeException e) {
            dataSource.close();
            release(claimed);
            throw e;
        }
        return new Database(dataSource, dialect, claimed);
    }

    /**
     * Incremental auto-vacuum must be chosen before the first table exists: it lets {@link #reclaimFreePages} give
     * the pages of deleted rows (pruned events and returns) back to the file system instead of keeping them.
     */
    private static void prepareSqliteFile(String url) {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            boolean empty;
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM sqlite_master")) {
                empty = rs.next() && rs.getInt(1) == 0;
            }
            if (empty) {
                s.execute("PRAGMA auto_vacuum = INCREMENTAL");
                s.execute("VACUUM");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot open the SQLite database " + url.substring("jdbc:sqlite:".length())
                    + ": " + e.getMessage(), e);
        }
    }

    private static void release(SqliteFile claimed) {
        if (claimed != null) {
            claimed.close();
        }
    }

    /**
     * Gives the pages that deleted rows left free back to the file system (SQLite with incremental auto-vacuum); does
     * nothing on PostgreSQL, whose autovacuum does this. Returns the pages freed.
     */
    public long reclaimFreePages() {
        if (dialect != Dialect.SQLITE) {
            return 0;
        }
        return jdbi.withHandle(h -> {
            long free = h.createQuery("PRAGMA freelist_count").mapTo(Long.class).one();
            h.execute("PRAGMA incremental_vacuum");
            return free - h.createQuery("PRAGMA freelist_count").mapTo(Long.class).one();
        });
    }

    public Jdbi jdbi() {
        return jdbi;
    }

    public DataSource dataSource() {
        return dataSource;
    }

    public Dialect dialect() {
        return dialect;
    }

    /** True when a connection can be taken and answers a trivial query. */
    public boolean isReachable() {
        try (Connection c = dataSource.getConnection()) {
            return c.isValid(2);
        } catch (SQLException e) {
            return false;
        }
    }

    @Override
    public void close() {
        dataSource.close();
        release(claimed);
    }
}
