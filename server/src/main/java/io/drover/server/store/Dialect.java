package io.drover.server.store;

import java.sql.SQLException;
import org.jdbi.v3.core.Handle;

/** The two databases Drover stores in, and the few places where their SQL differs. */
public enum Dialect {
    /** The embedded store: one file in the data directory. */
    SQLITE,
    /** A shared database for a cluster of servers, or wherever operators already run PostgreSQL. */
    POSTGRESQL;

    public static Dialect of(String jdbcUrl) {
        if (jdbcUrl.startsWith("jdbc:postgresql:")) {
            return POSTGRESQL;
        }
        if (jdbcUrl.startsWith("jdbc:sqlite:")) {
            return SQLITE;
        }
        throw new IllegalArgumentException("not a jdbc:sqlite: or jdbc:postgresql: URL");
    }

    /** The database a handle is connected to. */
    public static Dialect of(Handle handle) {
        try {
            return of(handle.getConnection().getMetaData().getURL());
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the database's URL", e);
        }
    }

    /**
     * What to append to a SELECT that reads rows the transaction will change. SQLite needs nothing: a write
     * transaction there starts IMMEDIATE, holding the database's only write lock from its first statement.
     */
    public String forUpdate() {
        return this == POSTGRESQL ? " FOR UPDATE" : "";
    }

    /** Where the migrations of this database live, on the class path. */
    String migrations() {
        return this == POSTGRESQL ? "classpath:db/migration/postgresql" : "classpath:db/migration/sqlite";
    }
}
