package io.drover.bench;

import io.drover.agent.functions.ListeningPorts;
import java.io.IOException;
import java.util.List;

/**
 * The host's listening ports read at most once a second for all simulated hosts of a load process. They share one
 * network namespace whose tables hold every simulated connection (thousands of rows); reading them once per
 * simulated agent would measure the kernel producing {@code /proc/net/tcp6} a thousand times, which a real fleet
 * (one agent per host, a few dozen sockets each) never does.
 */
final class SharedPortTable implements ListeningPorts.Source {
    private static final long MAX_AGE_NANOS = 1_000_000_000L;

    private List<Integer> ports;
    private long readAt;

    @Override
    public synchronized List<Integer> read() throws IOException {
        long now = System.nanoTime();
        if (ports == null || now - readAt > MAX_AGE_NANOS) {
            ports = ListeningPorts.read();
            readAt = now;
        }
        return ports;
    }
}
