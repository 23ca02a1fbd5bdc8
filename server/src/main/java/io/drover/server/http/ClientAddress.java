package io.drover.server.http;

import io.drover.core.net.AddressBlock;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The address a request comes from, for counting failed authentications: the TCP peer's, or, when the peer is one of
 * the trusted proxies ({@code trusted-proxies}), the nearest address in {@code X-Forwarded-For} that is not a trusted
 * proxy itself. A client can put anything in that header, so only what trusted proxies appended is believed: the list
 * is read from the right, and the first address not in a trusted block is the client.
 */
public final class ClientAddress {
    private static final Pattern OPTIONAL_WHITESPACE = Pattern.compile("^[ \t]+|[ \t]+$");
    /** Hops read from the right of X-Forwarded-For at most. */
    private static final int MAX_HOPS = 16;

    private final List<AddressBlock> trusted;

    private ClientAddress(List<AddressBlock> trusted) {
        this.trusted = List.copyOf(trusted);
    }

    /** Trusting the given CIDRs (IPv4 or IPv6; an address alone is a block of one). */
    public static ClientAddress trusting(List<String> cidrs) {
        return new ClientAddress(AddressBlock.parseAll(cidrs));
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
            byte[] address = AddressBlock.literal(hop);
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
        byte[] bytes = AddressBlock.literal(address);
        return bytes != null && isTrusted(bytes);
    }

    private boolean isTrusted(byte[] address) {
        return trusted.stream().anyMatch(b -> b.contains(address));
    }
}
