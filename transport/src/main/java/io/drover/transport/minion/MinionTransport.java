package io.drover.transport.minion;

import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The sockets under a {@link SaltMinion}: one request channel to the master's request port and one subscription to
 * its publish port. The minion keeps all of Salt's protocol (keys, session cipher, checks); a transport only moves
 * frames. {@link ZmtpMinionTransport} is the one: an agent runs it on its own selector loop, the fleet load tool
 * carries thousands of minions on one shared loop.
 */
public interface MinionTransport extends AutoCloseable {
    /**
     * Sends one request frame to a master's request port and returns the reply frame, retrying with a fresh
     * connection as the configuration says (a request to another master than the last closes the old connection).
     *
     * @throws RequestTimeoutException when no try was answered
     */
    byte[] request(MinionConfig.Master master, byte[] frame);

    /**
     * As {@link #request(MinionConfig.Master, byte[])}, waiting at most {@code timeout} per try and trying at most
     * {@code tries} times (a heartbeat's bound, shorter than a job return's).
     */
    byte[] request(MinionConfig.Master master, byte[] frame, java.time.Duration timeout, int tries);

    /**
     * Receives publishes from {@code host:port} with the given subscription prefixes (an empty prefix takes
     * everything) and hands each one's payload (its last frame) to {@code onPayload}, in order, on the calling
     * thread. Returns when {@code keepGoing} turns false (checked at least once a second) or the subscription
     * fails.
     */
    void subscribe(String host, int port, List<byte[]> prefixes, Consumer<byte[]> onPayload, BooleanSupplier keepGoing);

    /** Builds the thread that runs the minion's sign-in and subscription loop. */
    Thread.Builder loopThread();

    /** Closes every socket; a request waiting for its reply ends with {@link RequestTimeoutException}. */
    @Override
    void close();
}
