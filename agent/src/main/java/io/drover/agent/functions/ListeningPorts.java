package io.drover.agent.functions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;

/** Listening TCP ports of the host, from {@code /proc/net/tcp} and {@code /proc/net/tcp6} (state 0A = LISTEN). */
public final class ListeningPorts {
    /** Where the listening ports come from: this host's tables, or (in the fleet load tool) a shared copy. */
    public interface Source {
        List<Integer> read() throws IOException;
    }

    private ListeningPorts() {
    }

    public static List<Integer> read() throws IOException {
        TreeSet<Integer> ports = new TreeSet<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            Path file = Path.of(table);
            if (Files.isReadable(file)) {
                ports.addAll(parse(Files.readAllLines(file)));
            }
        }
        return List.copyOf(ports);
    }

    /**
     * Lines like {@code 0: 0100007F:1F90 00000000:0000 0A ...}: the local port of every LISTEN row. Only the first four
     * fields are cut out, without regular expressions: a busy host has thousands of rows.
     */
    static TreeSet<Integer> parse(List<String> lines) {
        TreeSet<Integer> ports = new TreeSet<>();
        String[] f = new String[4];
        for (String line : lines) {
            if (firstFields(line, f) && f[0].endsWith(":") && f[3].equals("0A")) {
                int colon = f[1].lastIndexOf(':');
                try {
                    ports.add(Integer.parseInt(f[1].substring(colon + 1), 16));
                } catch (NumberFormatException | StringIndexOutOfBoundsException ignored) {
                    // not a socket row
                }
            }
        }
        return ports;
    }

    /** Fills {@code fields} with the first whitespace-separated fields of the line; false if it has fewer. */
    private static boolean firstFields(String line, String[] fields) {
        int n = 0;
        int i = 0;
        int length = line.length();
        while (n < fields.length) {
            while (i < length && Character.isWhitespace(line.charAt(i))) {
                i++;
            }
            if (i == length) {
                return false;
            }
            int start = i;
            while (i < length && !Character.isWhitespace(line.charAt(i))) {
                i++;
            }
            fields[n++] = line.substring(start, i);
        }
        return true;
    }
}
