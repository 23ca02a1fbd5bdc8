package io.drover.server.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.jdbi.v3.core.Jdbi;

/** The connection pool, the schema migrations and the Jdbi handle factory for one database. */
public final class Database implements AutoCloseable {
    private final HikariDataSource dataSource;
    private final Jdbi jdbi;
    private final boolean postgres;

    private Database(HikariDataSource dataSource) {
        this.dataSource = dataSource;
        this.jdbi = Jdbi.create(dataSource);
        this.postgres = dataSource.getJdbcUrl().startsWith("jdbc:postgresql:");
    }

    /** Opens the pool and migrates the schema to the newest version. */
    public static Database open(String url, String user, String password, int poolSize) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        if (user != null && !user.isEmpty()) {
            config.setUsername(user);
        }
        if (password != null && !password.isEmpty()) {
            config.setPassword(password);
        }
        config.setMaximumPoolSize(poolSize);
        if (url.startsWith("jdbc:postgresql:")) {
            // batched INSERTs go to PostgreSQL as multi-row statements (job returns: one statement per 128 rows)
            config.addDataSourceProperty("reWriteBatchedInserts", "true");
        }
        config.setPoolName("drover-db");
        config.setConnectionTimeout(10_000);
        config.setInitializationFailTimeout(10_000);
        HikariDataSource dataSource = new HikariDataSource(config);
        try {
            Flyway.configure().dataSource(dataSource).locations("classpath:db/migration").load().migrate();
        } catch (RuntimeException e) {
            dataSource.close();
            throw e;
        }
        return new Database(dataSource);
    }

    public Jdbi jdbi() {
        return jdbi;
    }

    public DataSource dataSource() {
        return dataSource;
    }

    public boolean isPostgres() {
        return postgres;
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
    }
}
