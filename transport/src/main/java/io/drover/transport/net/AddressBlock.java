package io.drover.transport.net;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A block of IP addresses written as a CIDR ({@code 10.0.0.0/8}, {@code fd00::/8}) or a single address (a block of one),
 * IPv4 or IPv6. Only IP literals are parsed, so that no configured or received text can cause a name lookup.
 */
public record AddressBlock(byte[] network, int prefix) {
    private static final Pattern LITERAL = Pattern.compile("[0-9A-Fa-f:.]{2,45}");

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
        int prefix;
        try {
            prefix = slash < 0 ? address.length * 8 : Integer.parseInt(text.substring(slash + 1));
        } catch (NumberFormatException e) {
            prefix = -1;
        }
        if (prefix < 0 || prefix > address.length * 8) {
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
    public static boolean anyContains(List<AddressBlock> blocks, InetAddress address) {
        if (address == null) {
            return false;
        }
        byte[] bytes = address.getAddress();
        for (AddressBlock block : blocks) {
            if (block.contains(bytes)) {
                return true;
            }
        }
        return false;
    }

    /** The bytes of an IPv4 or IPv6 literal (IPv6 in brackets too), or null for anything else. */
    public static byte[] literal(String text) {
        if (text != null && text.length() > 2 && text.startsWith("[") && text.endsWith("]")) {
            text = text.substring(1, text.length() - 1);
        }
        if (text == null || !LITERAL.matcher(text).matches() || (text.indexOf(':') < 0 && text.chars().filter(c -> c == '.').count() != 3)) {
            return null;
        }
        try {
            return InetAddress.getByName(text).getAddress();
        } catch (UnknownHostException | RuntimeException e) {
            return null;
        }
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
        try {
            return InetAddress.getByAddress(network).getHostAddress() + "/" + prefix;
        } catch (UnknownHostException e) {
            return Arrays.toString(network) + "/" + prefix;
        }
    }
}
