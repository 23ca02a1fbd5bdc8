package io.drover.transport.admission;

import io.drover.core.net.AddressBlock;
import java.net.InetAddress;
import java.util.List;

/**
 * What one source address may cost on the transport ports: open connections on each port, and sign-ins
 * ({@code _auth}, each an RSA signature and maybe a pending key) per minute; 0 means no limit. Addresses in an
 * {@code exempt} block are not counted at all.
 *
 * <p>The defaults only stop floods: a real fleet behind one NAT address is thousands of hosts, each holding one
 * connection per port and signing in when it starts and when its key or the session key changes. Loopback is exempt
 * by default: the load generators and tests run thousands of agents from 127.0.0.1, and a local process can do
 * worse than open sockets anyway.
 */
public record AddressLimits(int maxConnections, int signInsPerMinute, List<AddressBlock> exempt) {
    /** A fifth of the default connection cap of a port (50,000): one address never holds them all. */
    public static final int DEFAULT_MAX_CONNECTIONS = 10_000;
    /** 100 a second: a sustained flood for one host, enough for a NAT of thousands to sign in again in minutes. */
    public static final int DEFAULT_SIGN_INS_PER_MINUTE = 6_000;
    public static final String DEFAULT_EXEMPT = "127.0.0.0/8,::1";

    public AddressLimits {
        if (maxConnections < 0 || signInsPerMinute < 0) {
            throw new IllegalArgumentException("per-address limits must be 0 (none) or more");
        }
        exempt = List.copyOf(exempt);
    }

    public static AddressLimits defaults() {
        return new AddressLimits(DEFAULT_MAX_CONNECTIONS, DEFAULT_SIGN_INS_PER_MINUTE,
                AddressBlock.parseAll(List.of(DEFAULT_EXEMPT.split(","))));
    }

    public static AddressLimits none() {
        return new AddressLimits(0, 0, List.of());
    }

    public boolean isExempt(InetAddress source) {
        return AddressBlock.anyContains(exempt, source == null ? null : source.getAddress());
    }
}
