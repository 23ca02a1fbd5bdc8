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
        return value instanceof String text ? parse(text) : rs.getObject(column, OffsetDateTime.class);
    }

    /**
     * Reads the text {@link #format} writes by position (a job's page reads thousands: the general parser costs
     * several times more); any other ISO-8601 offset date-time through {@link OffsetDateTime#parse}.
     */
    static OffsetDateTime parse(String text) {
        if (text.length() != 27 || text.charAt(4) != '-' || text.charAt(7) != '-' || text.charAt(10) != 'T'
                || text.charAt(13) != ':' || text.charAt(16) != ':' || text.charAt(19) != '.' || text.charAt(26) != 'Z') {
            return OffsetDateTime.parse(text);
        }
        int year = digits(text, 0, 4);
        int month = digits(text, 5, 7);
        int day = digits(text, 8, 10);
        int hour = digits(text, 11, 13);
        int minute = digits(text, 14, 16);
        int second = digits(text, 17, 19);
        int micros = digits(text, 20, 26);
        if ((year | month | day | hour | minute | second | micros) < 0) {
            return OffsetDateTime.parse(text); // not digits where the format has them: the general parser says why
        }
        return OffsetDateTime.of(year, month, day, hour, minute, second, micros * 1000, ZoneOffset.UTC);
    }

    /** The decimal number in {@code text[from, to)}; -1 when a character there is not an ASCII digit. */
    private static int digits(String text, int from, int to) {
        int value = 0;
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
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
