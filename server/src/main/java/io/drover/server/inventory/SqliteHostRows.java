package io.drover.server.inventory;

import io.drover.model.inventory.Host;
import io.drover.model.inventory.LazyAttributes;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Host rows read from SQLite with one text column instead of six: its driver costs about half a microsecond per
 * column read, which made listing 100,000 hosts take 360 ms for the columns alone. The text is the UTF-8 byte lengths
 * of the inner IP, name, OS, architecture and module list (-1 for NULL), a colon, then those values and the
 * attributes back to back. Lengths, not separators, mark the values, so no byte a name may hold (NUL, commas, control
 * characters) can move a value into another.
 */
final class SqliteHostRows {
    static final String COLUMNS = "h.bk_host_id, h.bk_biz_id, h.bk_cloud_id,"
            + " octet_length(h.bk_host_innerip) || ',' || coalesce(octet_length(h.bk_host_name), -1) || ','"
            + " || coalesce(octet_length(h.os_type), -1) || ',' || coalesce(octet_length(h.cpu_arch), -1) || ','"
            + " || octet_length(h.bk_module_ids) || ':' || h.bk_host_innerip || coalesce(h.bk_host_name, '')"
            + " || coalesce(h.os_type, '') || coalesce(h.cpu_arch, '') || h.bk_module_ids || h.attributes";

    private static final int MEASURED = 5;

    private SqliteHostRows() {
    }

    static Host host(ResultSet rs) throws SQLException {
        String[] values = unpack(rs.getBytes(4));
        return new Host(rs.getLong(1), rs.getLong(2), values[0], rs.getLong(3), values[1], values[2], values[3],
                InventoryStore.parseModuleList(values[4]), LazyAttributes.of(values[5]));
    }

    /** The six values of a packed row: inner IP, name, OS, architecture (each null when NULL), module list, attributes. */
    static String[] unpack(byte[] packed) {
        int[] lengths = new int[MEASURED];
        int pos = 0;
        for (int k = 0; k < MEASURED; k++) {
            boolean negative = packed[pos] == '-';
            if (negative) {
                pos++;
            }
            int value = 0;
            while (packed[pos] != ',' && packed[pos] != ':') {
                value = value * 10 + (packed[pos] - '0');
                pos++;
            }
            lengths[k] = negative ? -value : value;
            pos++;
        }
        String[] values = new String[MEASURED + 1];
        for (int k = 0; k < MEASURED; k++) {
            if (lengths[k] >= 0) {
                values[k] = new String(packed, pos, lengths[k], StandardCharsets.UTF_8);
                pos += lengths[k];
            }
        }
        values[MEASURED] = new String(packed, pos, packed.length - pos, StandardCharsets.UTF_8);
        return values;
    }
}
