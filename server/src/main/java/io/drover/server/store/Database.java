package io.drover.server.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
    /**
     * Below this much free space on the SQLite file's file system the database is reported full: an ordinary write
     * may fail there, since the WAL grows to about 4 MiB (1,000 pages) before it is copied into the database file.
     */
    public static final long DISK_FULL_BELOW_BYTES = 4L << 20;

    /** The claim on the SQLite file; null on PostgreSQL. */
    private final SqliteFile claimed;
    /** The SQLite file; null on PostgreSQL. */
    private final Path file;

    private Database(HikariDataSource dataSource, Dialect dialect, SqliteFile claimed, Path file) {
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.claimed = claimed;
        this.file = file;
        this.jdbi = Jdbi.create(dataSource);
        if (dialect == Dialect.SQLITE) {
            jdbi.registerArgument(new SqlTime.AsText());
            SqliteWriteLock writes = new SqliteWriteLock(SQLITE_BUSY_TIMEOUT_MILLIS);
            jdbi.setTransactionHandler(writes.transactions(jdbi.getTransactionHandler()));
            jdbi.getConfig(org.jdbi.v3.core.statement.SqlStatements.class).addCustomizer(writes.statements());
        }
    }

    /** Opens the pool and migrates the schema to the newest version; SQLite syncs as {@link SqliteSync#NORMAL}. */
    public static Database open(String url, String user, String password, int poolSize) {
        return open(url, user, password, poolSize, SqliteSync.NORMAL);
    }

    /** Opens the pool and migrates the schema to the newest version. */
    public static Database open(String url, String user, String password, int poolSize, SqliteSync sync) {
        return open(url, user, password, poolSize, sync, null);
    }

    /**
     * Opens the pool and migrates the schema to {@code version} (null: the newest): a copy from an earlier store is
     * written at the schema version it was read at, and the later migrations then carry its rows forward.
     */
    static Database open(String url, String user, String password, int poolSize, SqliteSync sync, String version) {
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
            // Reads from memory: SQLite's own page cache is 2 MB by default, so listing 100,000 hosts read most pages
            // again through the file system each time; mapped, they are read in place.
            config.addDataSourceProperty("cache_size", String.valueOf(-64 * 1024));
            config.addDataSourceProperty("mmap_size", String.valueOf(1L << 30));
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
            var flyway = Flyway.configure().dataSource(dataSource).locations(dialect.migrations());
            (version == null ? flyway : flyway.target(version)).load().migrate();
        } catch (RuntimeException e) {
            dataSource.close();
            release(claimed);
            throw e;
        }
        return new Database(dataSource, dialect, claimed, dialect == Dialect.SQLITE ? SqliteFile.of(url) : null);
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

    /**
     * The bytes free for this process on the file system of the SQLite file; -1 on PostgreSQL (whose disk is the
     * database server's) or when it cannot be read.
     */
    public long diskFreeBytes() {
        if (file == null) {
            return -1;
        }
        try {
            return Files.getFileStore(file.getParent()).getUsableSpace();
        } catch (IOException e) {
            return -1;
        }
    }

    /** True when the SQLite file's file system has less than {@link #DISK_FULL_BELOW_BYTES} free. */
    public boolean diskFull() {
        long free = diskFreeBytes();
        return free >= 0 && free < DISK_FULL_BELOW_BYTES;
    }

    @Override
    public void close() {
        dataSource.close();
        release(claimed);
    }
}
