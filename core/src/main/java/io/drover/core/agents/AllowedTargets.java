package io.drover.core.agents;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The addresses and ports the server may open SSH connections to for agent installs (the setting
 * {@code agent-install-allowed-targets}): a comma-separated list of entries, each an address block and optional ports.
 * <ul>
 *     <li>{@code *}: every address and port;</li>
 *     <li>{@code 10.0.0.0/8}, {@code 10.1.2.3}, {@code fd00::/8}: every port of the block (an address alone is a block of one);</li>
 *     <li>{@code 10.0.0.0/8:22}, {@code 10.0.0.0/8:2200-2299}, {@code [fd00::/8]:22}, {@code *:22}: those ports only
 *     (an IPv6 block with ports is written in brackets).</li>
 * </ul>
 * Only IP literals are parsed, here and in what is checked: names are resolved by the caller, which then connects to
 * the very address checked. An IPv4-mapped IPv6 address ({@code ::ffff:10.0.0.1}) is the IPv4 address it maps.
 */
public final class AllowedTargets {
    /** One entry: {@code network} null for every address. */
    private record Entry(byte[] network, int prefix, int fromPort, int toPort) {
        boolean allows(byte[] address, int port) {
            return port >= fromPort && port <= toPort && (network == null || inBlock(address));
        }

        private boolean inBlock(byte[] address) {
            if (address.length != network.length) {
                return false;
            }
            int full = prefix / 8;
            for (int i = 0; i < full; i++) {
                if (address[i] != network[i]) {
                    return false;
                }
            }
            int rest = prefix % 8;
            int mask = (0xFF << (8 - rest)) & 0xFF;
            return rest == 0 || (address[full] & mask) == (network[full] & mask);
        }
    }

    private static final int MAX_ENTRY = 100;
    private static final byte[] MAPPED = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xFF, (byte) 0xFF};

    private final List<Entry> entries;
    private final String text;

    private AllowedTargets(List<Entry> entries, String text) {
        this.entries = List.copyOf(entries);
        this.text = text;
    }

    /** @throws IllegalArgumentException naming the entry that is not an address block with optional ports */
    public static AllowedTargets parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("is empty: give * to allow every address, or CIDRs such as 10.0.0.0/8:22");
        }
        List<Entry> entries = new ArrayList<>();
        for (String part : text.split(",", -1)) {
            entries.add(entry(part.strip()));
        }
        return new AllowedTargets(entries, text.strip());
    }

    /** Whether every address and port is allowed (the default): nothing needs to be resolved before connecting. */
    public boolean allowsEverything() {
        return entries.stream().anyMatch(e -> e.network() == null && e.fromPort() == 1 && e.toPort() == 65535);
    }

    /** Whether {@code address} (4 or 16 bytes) on {@code port} is allowed. */
    public boolean allows(byte[] address, int port) {
        byte[] candidate = unmapped(address);
        return entries.stream().anyMatch(e -> e.allows(candidate, port));
    }

    @Override
    public String toString() {
        return text;
    }

    private static Entry entry(String text) {
        if (text.isEmpty()) {
            throw new IllegalArgumentException("has an empty entry (two commas, or one at an end)");
        }
        if (text.length() > MAX_ENTRY) {
            throw new IllegalArgumentException("has an entry of " + text.length() + " characters: at most " + MAX_ENTRY);
        }
        if (text.chars().anyMatch(c -> c < 0x21 || c > 0x7e)) {
            throw new IllegalArgumentException("has an entry with a space, a control or a non-ASCII character");
        }
        String block = text;
        String ports = null;
        if (text.startsWith("[")) {
            int end = text.indexOf(']');
            if (end < 0 || (end + 1 < text.length() && text.charAt(end + 1) != ':')) {
                throw invalid(text);
            }
            block = text.substring(1, end);
            ports = end + 1 < text.length() ? text.substring(end + 2) : null;
            if (block.indexOf(':') < 0) {
                throw new IllegalArgumentException("'" + text + "': only an IPv6 block is written in brackets");
            }
        } else if (text.indexOf(':') >= 0 && text.indexOf(':') == text.lastIndexOf(':')) {
            block = text.substring(0, text.indexOf(':'));
            ports = text.substring(text.indexOf(':') + 1);
        }
        int[] range = ports == null ? new int[] {1, 65535} : ports(text, ports);
        if (block.equals("*")) {
            return new Entry(null, 0, range[0], range[1]);
        }
        int slash = block.indexOf('/');
        byte[] network = literal(slash < 0 ? block : block.substring(0, slash));
        if (network == null) {
            throw invalid(text);
        }
        int prefix = slash < 0 ? network.length * 8 : number(block.substring(slash + 1), network.length * 8);
        if (prefix < 0) {
            throw new IllegalArgumentException("'" + text + "': the prefix must be 0 to " + network.length * 8);
        }
        if (network.length == 16 && prefix >= 96 && Arrays.equals(Arrays.copyOf(network, 12), MAPPED)) {
            network = Arrays.copyOfRange(network, 12, 16);
            prefix -= 96;
        }
        return new Entry(network, prefix, range[0], range[1]);
    }

    private static int[] ports(String entry, String ports) {
        if (ports.equals("*")) {
            return new int[] {1, 65535};
        }
        int dash = ports.indexOf('-');
        int from = number(dash < 0 ? ports : ports.substring(0, dash), 65535);
        int to = dash < 0 ? from : number(ports.substring(dash + 1), 65535);
        if (from < 1 || to < from) {
            throw new IllegalArgumentException("'" + entry + "': ports must be PORT, FROM-TO or * (1 to 65535, FROM <= TO)");
        }
        return new int[] {from, to};
    }

    /** A decimal number of 1 to 5 digits up to {@code max}, or -1. */
    private static int number(String text, int max) {
        if (text.isEmpty() || text.length() > 5 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return -1;
        }
        int n = Integer.parseInt(text);
        return n <= max ? n : -1;
    }

    private static IllegalArgumentException invalid(String entry) {
        return new IllegalArgumentException("'" + entry + "' is not *, an IPv4 or IPv6 address or CIDR block, with "
                + "optional :PORT, :FROM-TO or :* ([IPv6/N]:PORT)");
    }

    /** An IPv4-mapped IPv6 address as its IPv4 address; any other address as it is. */
    static byte[] unmapped(byte[] address) {
        if (address.length == 16 && Arrays.equals(Arrays.copyOf(address, 12), MAPPED)) {
            return Arrays.copyOfRange(address, 12, 16);
        }
        return address;
    }

    /**
     * The bytes of an IPv4 literal (four decimal octets, no leading zeros) or an IPv6 literal (RFC 4291 text, with
     * {@code ::} and a dotted IPv4 tail; no zone), or null for anything else. Never a name lookup.
     */
    public static byte[] literal(String text) {
        if (text == null || text.isEmpty() || text.length() > 45) {
            return null;
        }
        return text.indexOf(':') < 0 ? ipv4(text) : ipv6(text);
    }

    private static byte[] ipv4(String text) {
        String[] octets = text.split("\\.", -1);
        if (octets.length != 4) {
            return null;
        }
        byte[] bytes = new byte[4];
        for (int i = 0; i < 4; i++) {
            String o = octets[i];
            int n = number(o, 255);
            if (n < 0 || o.length() > 3 || (o.length() > 1 && o.charAt(0) == '0')) {
                return null;
            }
            bytes[i] = (byte) n;
        }
        return bytes;
    }

    private static byte[] ipv6(String text) {
        int gap = text.indexOf("::");
        if (gap >= 0 && text.indexOf("::", gap + 1) >= 0) {
            return null;
        }
        List<Integer> head = groups(gap < 0 ? text : text.substring(0, gap), gap < 0);
        List<Integer> tail = gap < 0 ? List.of() : groups(text.substring(gap + 2), true);
        if (head == null || tail == null) {
            return null;
        }
        int count = head.size() + tail.size();
        if (gap < 0 ? count != 8 : count > 7) {
            return null;
        }
        byte[] bytes = new byte[16];
        for (int i = 0; i < head.size(); i++) {
            bytes[2 * i] = (byte) (head.get(i) >> 8);
            bytes[2 * i + 1] = (byte) (int) head.get(i);
        }
        for (int i = 0; i < tail.size(); i++) {
            int at = 8 - tail.size() + i;
            bytes[2 * at] = (byte) (tail.get(i) >> 8);
            bytes[2 * at + 1] = (byte) (int) tail.get(i);
        }
        return bytes;
    }

    /** The 16-bit groups of a side of {@code ::} (empty text: none); {@code last}: it may end with a dotted IPv4 address. */
    private static List<Integer> groups(String text, boolean last) {
        List<Integer> groups = new ArrayList<>();
        if (text.isEmpty()) {
            return groups;
        }
        String[] parts = text.split(":", -1);
        for (int i = 0; i < parts.length; i++) {
            String g = parts[i];
            if (last && i == parts.length - 1 && g.indexOf('.') >= 0) {
                byte[] v4 = ipv4(g);
                if (v4 == null) {
                    return null;
                }
                groups.add((v4[0] & 0xFF) << 8 | (v4[1] & 0xFF));
                groups.add((v4[2] & 0xFF) << 8 | (v4[3] & 0xFF));
            } else if (g.isEmpty() || g.length() > 4 || !g.chars().allMatch(c -> Character.digit(c, 16) >= 0 && c < 0x80)) {
                return null;
            } else {
                groups.add(Integer.parseInt(g, 16));
            }
        }
        return groups;
    }
}
