package io.drover.core.packages;

import java.util.ArrayList;
import java.util.List;

/** A plugin's {@code port_range}: ports and inclusive ranges separated by commas, e.g. {@code 9102,10000-10005}. */
public final class PortRange {
    private final String text;
    private final List<int[]> ranges;

    private PortRange(String text, List<int[]> ranges) {
        this.text = text;
        this.ranges = ranges;
    }

    public static PortRange parse(String text) {
        if (text == null || text.isBlank()) {
            throw new PackageException("port_range is empty");
        }
        List<int[]> ranges = new ArrayList<>();
        for (String item : text.split(",", -1)) {
            String part = item.strip();
            int dash = part.indexOf('-');
            int low = port(text, dash < 0 ? part : part.substring(0, dash));
            int high = dash < 0 ? low : port(text, part.substring(dash + 1));
            if (high < low) {
                throw new PackageException("port_range '" + text + "': range " + part + " ends before it starts");
            }
            ranges.add(new int[] {low, high});
        }
        return new PortRange(text.strip(), List.copyOf(ranges));
    }

    private static int port(String text, String value) {
        String v = value.strip();
        if (!v.matches("\\d{1,5}") || Integer.parseInt(v) < 1 || Integer.parseInt(v) > 65535) {
            throw new PackageException("port_range '" + text + "': '" + v + "' is not a port (1-65535)");
        }
        return Integer.parseInt(v);
    }

    /** Every port in order of the ranges (at most 65,535). */
    public List<Integer> ports() {
        List<Integer> ports = new ArrayList<>();
        for (int[] range : ranges) {
            for (int p = range[0]; p <= range[1]; p++) {
                ports.add(p);
            }
        }
        return ports;
    }

    public boolean contains(int port) {
        for (int[] range : ranges) {
            if (port >= range[0] && port <= range[1]) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return text;
    }
}
