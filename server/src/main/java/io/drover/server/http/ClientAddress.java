package io.drover.server.http;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The address a request comes from, for counting failed authentications: the TCP peer's, or, when the peer is one of
 * the trusted proxies ({@code trusted-proxies}), the nearest address in {@code X-Forwarded-For} that is not a trusted
 * proxy itself. A client can put anything in that header, so only what trusted proxies appended is believed: the list
 * is read from the right, and the first address not in a trusted block is the client.
 */
public final class ClientAddress {
    /** Only IP literals are parsed, so that no header value can cause a name lookup. */
    private static final Pattern LITERAL = Pattern.compile("[0-9A-Fa-f:.]{2,45}");
    private static final Pattern OPTIONAL_WHITESPACE = Pattern.compile("^[ \t]+|[ \t]+$");
    /** Hops read from the right of X-Forwarded-For at most. */
    private static final int MAX_HOPS = 16;

    private final List<Block> trusted;

    private ClientAddress(List<Block> trusted) {
        this.trusted = List.copyOf(trusted);
    }

    /** Trusting the given CIDRs (IPv4 or IPv6; an address alone is a block of one). */
    public static ClientAddress trusting(List<String> cidrs) {
        List<Block> blocks = new ArrayList<>();
        for (String cidr : cidrs) {
            blocks.add(Block.parse(cidr));
        }
        return new ClientAddress(blocks);
    }

    /** The client address of a request from {@code peer} carrying {@code forwardedFor} (null when absent). */
    public String of(String peer, String forwardedFor) {
        if (trusted.isEmpty() || forwardedFor == null || !isTrusted(peer)) {
            return peer;
        }
        String[] hops = forwardedFor.split(",", -1);
        int stop = Math.max(0, hops.length - MAX_HOPS);
        for (int i = hops.length - 1; i >= stop; i--) {
            String hop = OPTIONAL_WHITESPACE.matcher(hops[i]).replaceAll(""); // spaces and tabs only: no control characters
            byte[] address = literal(hop);
            if (address == null) {
                return peer; // a malformed hop: believe only what the connection shows
            }
            if (!isTrusted(address)) {
                return hop;
            }
        }
        return peer;
    }

    private boolean isTrusted(String address) {
        byte[] bytes = literal(address);
        return bytes != null && isTrusted(bytes);
    }

    private boolean isTrusted(byte[] address) {
        return trusted.stream().anyMatch(b -> b.contains(address));
    }

    /** The bytes of an IPv4 or IPv6 literal, or null for anything else. */
    static byte[] literal(String text) {
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

    /** A network: its address bytes and prefix length. */
    record Block(byte[] network, int prefix) {
        static Block parse(String cidr) {
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
            return new Block(address, prefix);
        }

        boolean contains(byte[] address) {
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
    }
}
