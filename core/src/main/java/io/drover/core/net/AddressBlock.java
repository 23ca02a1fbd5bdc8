package io.drover.core.net;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A block of IP addresses written as a CIDR ({@code 10.0.0.0/8}, {@code fd00::/8}, {@code [fd00::]/8}) or a single
 * address (a block of one), IPv4 or IPv6. Only IP literals are parsed, by this class and never by a resolver, so that
 * no configured or received text can cause a name lookup.
 */
public record AddressBlock(byte[] network, int prefix) {
    private static final int MAX_LITERAL = 45;

    public AddressBlock {
        network = network.clone();
    }

    @Override
    public byte[] network() {
        return network.clone();
    }

    /** @throws IllegalArgumentException naming the text when it is no address or CIDR block */
    public static AddressBlock parse(String cidr) {
        String text = cidr.strip();
        int slash = text.indexOf('/');
        byte[] address = literal(slash < 0 ? text : text.substring(0, slash));
        if (address == null) {
            throw new IllegalArgumentException("'" + cidr + "' is not an IP address or CIDR block");
        }
        int prefix = slash < 0 ? address.length * 8 : number(text.substring(slash + 1), address.length * 8);
        if (prefix < 0) {
            throw new IllegalArgumentException("'" + cidr + "' has a prefix outside 0-" + address.length * 8);
        }
        return new AddressBlock(address, prefix);
    }

    /** Each of the given blocks, parsed. */
    public static List<AddressBlock> parseAll(List<String> cidrs) {
        List<AddressBlock> blocks = new ArrayList<>();
        for (String cidr : cidrs) {
            blocks.add(parse(cidr));
        }
        return List.copyOf(blocks);
    }

    /** Whether any of {@code blocks} contains {@code address}. */
    public static boolean anyContains(List<AddressBlock> blocks, byte[] address) {
        if (address == null) {
            return false;
        }
        for (AddressBlock block : blocks) {
            if (block.contains(address)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The bytes of an IPv4 literal (four decimal octets, no leading zeros) or an IPv6 literal (RFC 4291 text, with
     * {@code ::} and a dotted IPv4 tail, in brackets or not; no zone), or null for anything else.
     */
    public static byte[] literal(String text) {
        if (text != null && text.length() > 2 && text.startsWith("[") && text.endsWith("]")) {
            text = text.substring(1, text.length() - 1);
        }
        if (text == null || text.isEmpty() || text.length() > MAX_LITERAL) {
            return null;
        }
        return text.indexOf(':') < 0 ? ipv4(text) : ipv6(text);
    }

    /** Whether the address (4 or 16 bytes) is in this block; an IPv4 address is never in an IPv6 block, nor the reverse. */
    public boolean contains(byte[] address) {
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
        if (rest == 0) {
            return true;
        }
        int mask = (0xFF << (8 - rest)) & 0xFF;
        return (address[full] & mask) == (network[full] & mask);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AddressBlock b && b.prefix == prefix && Arrays.equals(b.network, network);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(network) + prefix;
    }

    @Override
    public String toString() {
        return text(network) + "/" + prefix;
    }

    /** An address's usual text: dotted IPv4, or IPv6 in lower-case hex with the longest run of zero groups as {@code ::}. */
    public static String text(byte[] address) {
        if (address.length == 4) {
            return (address[0] & 0xFF) + "." + (address[1] & 0xFF) + "." + (address[2] & 0xFF) + "." + (address[3] & 0xFF);
        }
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = (address[2 * i] & 0xFF) << 8 | (address[2 * i + 1] & 0xFF);
        }
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; i++) {
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = Math.max(i, j);
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                text.append("::");
                i += bestLength - 1;
                continue;
            }
            if (!text.isEmpty() && text.charAt(text.length() - 1) != ':') {
                text.append(':');
            }
            text.append(Integer.toHexString(groups[i]));
        }
        return text.toString();
    }

    /** A decimal number of 1 to 5 ASCII digits up to {@code max}, or -1. */
    public static int number(String text, int max) {
        if (text.isEmpty() || text.length() > 5 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return -1;
        }
        int n = Integer.parseInt(text);
        return n <= max ? n : -1;
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
