package io.drover.transport.minion;

import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * An agent's sockets, on its own ZeroMQ context: a SUB socket owned by the minion's loop thread and one long-lived
 * DEALER for requests (one request at a time; a timed-out socket is replaced so that a late reply is never read as
 * the answer to the next request).
 */
public final class JeroMqTransport implements MinionTransport {
    private static final Logger log = LoggerFactory.getLogger(JeroMqTransport.class);
    /**
     * A connection whose ZMTP handshake has not finished by then is dropped and redialled. Measured here with
     * JeroMQ 0.6.0 on JDK 25: about one loopback connection in three stalls with the peer's greeting unread;
     * without this limit such a SUB never receives anything.
     */
    public static final int HANDSHAKE_MS = 2000;

    private final MinionConfig config;
    private final ZContext context = new ZContext(1);
    private final Object requestLock = new Object();
    private ZMQ.Socket request;
    private volatile boolean open = true;

    public JeroMqTransport(MinionConfig config) {
        this.config = config;
    }

    @Override
    public Thread.Builder loopThread() {
        return Thread.ofPlatform().daemon();
    }

    @Override
    public byte[] request(byte[] frame) {
        synchronized (requestLock) {
            for (int attempt = 1; attempt <= config.tries() && open; attempt++) {
                if (request == null) {
                    request = context.createSocket(SocketType.DEALER);
                    request.setLinger(0);
                    request.setHandshakeIvl(HANDSHAKE_MS);
                    request.setReconnectIVLMax(5000);
                    request.connect("tcp://" + config.masterHost() + ":" + config.requestPort());
                }
                request.send(new byte[0], ZMQ.SNDMORE);
                request.send(frame, 0);
                request.setReceiveTimeOut((int) config.requestTimeout().toMillis());
                byte[] empty = request.recv(0);
                if (empty != null && request.hasReceiveMore()) {
                    return request.recv(0);
                }
                request.close();
                request = null;
            }
            throw new RequestTimeoutException();
        }
    }

    @Override
    public void subscribe(String host, int port, List<byte[]> prefixes, Consumer<byte[]> onPayload, BooleanSupplier keepGoing) {
        try (ZMQ.Socket sub = context.createSocket(SocketType.SUB)) {
            sub.setHandshakeIvl(HANDSHAKE_MS);
            sub.setReconnectIVL(1000 + ThreadLocalRandom.current().nextInt(1 + (int) config.reconnectJitter().toMillis()));
            sub.setReconnectIVLMax(10_000);
            sub.setLinger(0);
            sub.setRcvHWM(10_000);
            prefixes.forEach(sub::subscribe);
            sub.connect("tcp://" + host + ":" + port);
            log.debug("{}: subscribed to {}:{}", config.id(), host, port);
            // Wakes up once a second to notice a stop or a re-authentication asked for by another thread.
            sub.setReceiveTimeOut(1000);
            while (open && keepGoing.getAsBoolean()) {
                byte[] payload = sub.recv(0);
                if (payload == null) {
                    continue;
                }
                while (sub.hasReceiveMore()) {
                    payload = sub.recv(0);
                }
                onPayload.accept(payload);
            }
        } catch (RuntimeException e) {
            if (open) {
                log.warn("{}: subscription failed: {}", config.id(), e.toString());
            }
        }
    }

    /** Call after the loop thread has left {@link #subscribe}: a ZeroMQ socket belongs to one thread. */
    @Override
    public void close() {
        open = false;
        synchronized (requestLock) {
            context.close();
        }
    }
}
