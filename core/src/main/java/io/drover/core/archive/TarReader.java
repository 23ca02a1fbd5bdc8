package io.drover.core.archive;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads a tar stream entry by entry (ustar with its name prefix, GNU long names and links, pax path, linkpath and
 * size records). It parses only: callers decide where, and whether, entries are written.
 */
public final class TarReader {
    private static final int BLOCK = 512;

    /** One entry: type '0' file, '5' directory, '2' symbolic link, '1' hard link, anything else is refused by callers. */
    public record Entry(String name, char type, long size, int mode, String linkName) {
        public boolean isFile() {
            return type == '0' || type == '\0' || type == '7';
        }
    }

    private final InputStream in;
    private long remaining;
    private long padding;

    public TarReader(InputStream in) {
        this.in = in;
    }

    /** The next entry, or null at the end of the archive; skips what was left of the previous entry's content. */
    public Entry next() throws IOException {
        skipRest();
        String longName = null;
        String longLink = null;
        Map<String, String> pax = Map.of();
        while (true) {
            byte[] header = in.readNBytes(BLOCK);
            if (header.length == 0) {
                return null;
            }
            if (header.length < BLOCK) {
                throw new ArchiveException("truncated tar header");
            }
            if (isZero(header)) {
                return null;
            }
            verifyChecksum(header);
            char type = (char) header[156];
            long size = number(header, 124, 12, "size");
            if (size < 0) {
                throw new ArchiveException("entry with a negative size");
            }
            switch (type) {
                case 'L', 'K' -> {
                    String value = text(readAll(size), 0, (int) size);
                    if (type == 'L') {
                        longName = value;
                    } else {
                        longLink = value;
                    }
                    continue;
                }
                case 'x' -> {
                    pax = paxRecords(readAll(size));
                    continue;
                }
                case 'g' -> {
                    readAll(size);
                    continue;
                }
                default -> {
                }
            }
            String name = text(header, 0, 100);
            String magic = text(header, 257, 6);
            if (magic.startsWith("ustar")) {
                String prefix = text(header, 345, 155);
                if (!prefix.isEmpty()) {
                    name = prefix + "/" + name;
                }
            }
            if (longName != null) {
                name = longName;
            }
            String link = longLink != null ? longLink : text(header, 157, 100);
            name = pax.getOrDefault("path", name);
            link = pax.getOrDefault("linkpath", link);
            if (pax.containsKey("size")) {
                try {
                    size = Long.parseLong(pax.get("size"));
                } catch (NumberFormatException e) {
                    throw new ArchiveException("pax size '" + pax.get("size") + "' is not a number");
                }
            }
            int mode = (int) number(header, 100, 8, "mode");
            boolean hasContent = type == '0' || type == '\0' || type == '7';
            remaining = hasContent ? size : 0;
            padding = hasContent ? (BLOCK - size % BLOCK) % BLOCK : 0;
            if (!hasContent && size > 0 && type != '5') {
                // content of an entry kind we do not read (devices say 0; others are skipped)
                remaining = size;
                padding = (BLOCK - size % BLOCK) % BLOCK;
            }
            return new Entry(name, type, size, mode & 07777, link);
        }
    }

    /** The current entry's content; reading past it returns end of stream. */
    public InputStream content() {
        return new FilterInputStream(in) {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (remaining <= 0) {
                    return -1;
                }
                int n = in.read(b, off, (int) Math.min(len, remaining));
                if (n < 0) {
                    throw new ArchiveException("truncated tar entry");
                }
                remaining -= n;
                return n;
            }

            @Override
            public void close() {
                // the archive stream stays open
            }
        };
    }

    private void skipRest() throws IOException {
        long skip = remaining + padding;
        remaining = 0;
        padding = 0;
        while (skip > 0) {
            long n = in.skip(skip);
            if (n <= 0) {
                if (in.read() < 0) {
                    throw new ArchiveException("truncated tar entry");
                }
                n = 1;
            }
            skip -= n;
        }
    }

    private byte[] readAll(long size) throws IOException {
        if (size > 1 << 20) {
            throw new ArchiveException("tar extension header of " + size + " bytes is too large");
        }
        byte[] data = in.readNBytes((int) size);
        if (data.length < size) {
            throw new ArchiveException("truncated tar extension header");
        }
        in.readNBytes((int) ((BLOCK - size % BLOCK) % BLOCK));
        return data;
    }

    private static Map<String, String> paxRecords(byte[] data) {
        Map<String, String> records = new HashMap<>();
        int at = 0;
        while (at < data.length) {
            int space = indexOf(data, (byte) ' ', at);
            if (space < 0) {
                throw new ArchiveException("malformed pax header");
            }
            int length;
            try {
                length = Integer.parseInt(new String(data, at, space - at, StandardCharsets.US_ASCII));
            } catch (NumberFormatException e) {
                throw new ArchiveException("malformed pax header");
            }
            if (length <= space - at + 1 || at + length > data.length) {
                throw new ArchiveException("malformed pax header");
            }
            String record = new String(data, space + 1, at + length - space - 2, StandardCharsets.UTF_8);
            int eq = record.indexOf('=');
            if (eq > 0) {
                records.put(record.substring(0, eq), record.substring(eq + 1));
            }
            at += length;
        }
        return records;
    }

    private static int indexOf(byte[] data, byte b, int from) {
        for (int i = from; i < data.length; i++) {
            if (data[i] == b) {
                return i;
            }
        }
        return -1;
    }

    private static boolean isZero(byte[] block) {
        for (byte b : block) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    private static void verifyChecksum(byte[] header) {
        long stored;
        try {
            stored = number(header, 148, 8, "checksum");
        } catch (ArchiveException e) {
            stored = -1;
        }
        long sum = 0;
        for (int i = 0; i < BLOCK; i++) {
            sum += (i >= 148 && i < 156) ? ' ' : header[i] & 0xFF;
        }
        if (sum != stored) {
            throw new ArchiveException("tar header checksum mismatch: not a tar archive, or a corrupt one");
        }
    }

    private static String text(byte[] data, int offset, int length) {
        int end = offset;
        while (end < offset + length && end < data.length && data[end] != 0) {
            end++;
        }
        return new String(data, offset, end - offset, StandardCharsets.UTF_8);
    }

    /** An octal field (or GNU base-256 for big sizes). */
    private static long number(byte[] data, int offset, int length, String what) {
        if ((data[offset] & 0x80) != 0) {
            long value = data[offset] & 0x7F;
            for (int i = offset + 1; i < offset + length; i++) {
                value = (value << 8) | (data[i] & 0xFF);
            }
            return value;
        }
        String field = text(data, offset, length).strip();
        if (field.isEmpty()) {
            return 0;
        }
        try {
            return Long.parseLong(field, 8);
        } catch (NumberFormatException e) {
            throw new ArchiveException("tar header " + what + " '" + field + "' is not an octal number");
        }
    }
}
