package io.drover.agent.functions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;

/** Listening TCP ports of the host, from {@code /proc/net/tcp} and {@code /proc/net/tcp6} (state 0A = LISTEN). */
final class ListeningPorts {
    private ListeningPorts() {
    }

    static List<Integer> read() throws IOException {
        TreeSet<Integer> ports = new TreeSet<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            Path file = Path.of(table);
            if (Files.isReadable(file)) {
                ports.addAll(parse(Files.readAllLines(file)));
            }
        }
        return List.copyOf(ports);
    }

    /** Lines like {@code 0: 0100007F:1F90 00000000:0000 0A ...}: the local port of every LISTEN row. */
    static TreeSet<Integer> parse(List<String> lines) {
        TreeSet<Integer> ports = new TreeSet<>();
        for (String line : lines) {
            String[] f = line.strip().split("\\s+");
            if (f.length > 3 && f[0].endsWith(":") && f[3].equals("0A")) {
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
}
