package io.drover.server.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import org.jdbi.v3.core.argument.AbstractArgumentFactory;
import org.jdbi.v3.core.argument.Argument;
import org.jdbi.v3.core.config.ConfigRegistry;

/**
 * Timestamps in SQLite, which has no type for them: TEXT in UTC with a fixed width and microseconds (what PostgreSQL
 * keeps), such as {@code 2026-11-27T11:49:22.987206Z}, so that text comparison and ORDER BY are time order.
 */
public final class SqlTime {
    private static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'");

    private SqlTime() {
    }

    public static String format(OffsetDateTime time) {
        return FORMAT.format(time.withOffsetSameInstant(ZoneOffset.UTC).truncatedTo(ChronoUnit.MICROS));
    }

    /** A timestamp column on either database; null when the column is NULL. */
    public static OffsetDateTime read(ResultSet rs, String column) throws SQLException {
        return read(rs, rs.findColumn(column));
    }

    /** The same by position. */
    public static OffsetDateTime read(ResultSet rs, int column) throws SQLException {
        Object value = rs.getObject(column);
        if (value == null) {
            return null;
        }
        return value instanceof String text ? OffsetDateTime.parse(text) : rs.getObject(column, OffsetDateTime.class);
    }

    /** Binds OffsetDateTime arguments as that text; registered on SQLite's Jdbi only. */
    static final class AsText extends AbstractArgumentFactory<OffsetDateTime> {
        AsText() {
            super(Types.VARCHAR);
        }

        @Override
        protected Argument build(OffsetDateTime value, ConfigRegistry config) {
            String text = format(value);
            return (position, statement, context) -> statement.setString(position, text);
        }
    }
}
