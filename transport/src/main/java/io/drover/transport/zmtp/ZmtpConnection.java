package io.drover.transport.zmtp;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One ZMTP 3.0 connection (NULL mechanism) on a {@link ZmtpLoop}, dialled or accepted: the loop reads and decodes
 * it; any thread may send. A send writes straight to the socket when nothing is queued (the usual case for small
 * frames) and otherwise queues for the loop to flush, up to {@link ZmtpLimits#maxQueuedBytes()}; past that the
 * message is dropped, as a ZeroMQ socket at its high-water mark does. The handshake goes as ZeroMQ's own: the
 * signature first, the rest of the greeting and READY once the peer's version has arrived, messages only after the
 * peer's READY (JeroMQ 0.6 takes a message that arrives before it has sent its own READY for a second handshake
 * command and drops the connection); sends wait till then. A message from the peer before its READY, or anything
 * over a limit, closes the connection.
 */
public final class ZmtpConnection implements ZmtpDecoder.Sink, ZmtpLoop.Selectable {
    /** What the connection delivers; called on the loop thread, so it must not block. */
    public interface Handler {
        /** An accepted connection, before it reads anything. */
        default void onOpened(ZmtpConnection connection) {
        }

        void onMessage(ZmtpConnection connection, List<byte[]> frames) throws ZmtpException;

        /** The connection is closed (refused, reset, protocol error, timeout or {@link #close()}); called once. */
        void onClosed(ZmtpConnection connection);
    }

    private static final byte[] SUBSCRIBE = {9, 'S', 'U', 'B', 'S', 'C', 'R', 'I', 'B', 'E'};
    private static final byte[] CANCEL = {6, 'C', 'A', 'N', 'C', 'E', 'L'};

    private final ZmtpLoop loop;
    private final SocketChannel channel;
    private final Handler handler;
    private final ZmtpDecoder decoder;
    private final ZmtpLimits limits;
    private final ZmtpStats stats;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Guarded by this. */
    private final ArrayDeque<ByteBuffer> out = new ArrayDeque<>();
    /** Guarded by this: bytes in {@link #out} and {@link #held}. */
    private long queued;
    /** Guarded by this: messages held back until the peer's READY; null since then. */
    private ArrayDeque<ByteBuffer> held = new ArrayDeque<>();
    private final String socketType;
    /** Loop thread only. */
    private boolean versionSent;
    private boolean greetingSent;
    private volatile boolean peerReady;
    private final long handshakeDeadline;
    /** Loop thread only. */
    private SelectionKey key;
    private volatile Object attachment;
    /** The peer's address, for an accepted connection; null for one this side dialled. */
    private final InetAddress source;

    ZmtpConnection(ZmtpLoop loop, SocketChannel channel, String socketType, ZmtpLimits limits, ReceiveBudget budget,
                   ZmtpStats stats, Handler handler) {
        this(loop, channel, null, socketType, limits, budget, stats, handler);
    }

    ZmtpConnection(ZmtpLoop loop, SocketChannel channel, InetAddress source, String socketType, ZmtpLimits limits,
                   ReceiveBudget budget, ZmtpStats stats, Handler handler) {
        this.loop = loop;
        this.source = source;
        this.channel = channel;
        this.socketType = socketType;
        this.handler = handler;
        this.limits = limits;
        this.stats = stats;
        this.decoder = new ZmtpDecoder(limits, budget);
        this.handshakeDeadline = loop.nanos() + ZmtpLoop.HANDSHAKE_NANOS;
        byte[] greeting = Zmtp.greeting();
        out.add(ByteBuffer.wrap(greeting, 0, Zmtp.SIGNATURE_LENGTH));
        queued = Zmtp.SIGNATURE_LENGTH;
    }

    /** Whatever the owner keeps with the connection (a router's identity, a publisher's subscriptions). */
    public Object attachment() {
        return attachment;
    }

    public void attach(Object value) {
        attachment = value;
    }

    /** Sends one encoded message or command; false when the connection is closed or its queue is full. */
    boolean send(ByteBuffer data) {
        synchronized (this) {
            if (closed.get()) {
                return false;
            }
            if (queued + data.remaining() > limits.maxQueuedBytes()) {
                stats.dropped();
                return false;
            }
            if (held != null) {
                held.add(data);
                queued += data.remaining();
                return true;
            }
            if (!out.isEmpty()) { // (not held: the peer's READY came, so the connection is up)
                out.add(data);
                queued += data.remaining();
                return true;
            }
            try {
                channel.write(data);
            } catch (IOException e) {
                loop.execute(this::close);
                return false;
            }
            if (data.hasRemaining()) {
                out.add(data);
                queued += data.remaining();
                loop.execute(this::wantWrite);
            }
            return true;
        }
    }

    /** Sends a message of the given frames. */
    public boolean send(byte[]... frames) {
        return send(Zmtp.message(frames));
    }

    /** Whether both sides have finished the handshake. */
    public boolean ready() {
        return peerReady;
    }

    /** Loop thread: starts connecting. */
    void connect(Selector selector, InetSocketAddress address) {
        try {
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            key = channel.register(selector, SelectionKey.OP_CONNECT, this);
            if (channel.connect(address)) {
                onConnectable();
            }
        } catch (IOException | RuntimeException e) {
            close();
        }
    }

    /** Loop thread: an accepted connection starts its handshake. */
    void accepted(Selector selector) {
        try {
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            key = channel.register(selector, SelectionKey.OP_READ, this);
            flush();
        } catch (IOException | RuntimeException e) {
            close();
        }
    }

    /** Loop thread: the selector says this connection is ready for {@code ops}. */
    @Override
    public void onReady(int ops, ByteBuffer scratch) {
        try {
            if ((ops & SelectionKey.OP_CONNECT) != 0) {
                onConnectable();
            }
            if ((ops & SelectionKey.OP_WRITE) != 0) {
                flush();
            }
            if ((ops & SelectionKey.OP_READ) != 0) {
                read(scratch);
            }
        } catch (ZmtpException e) {
            stats.protocolError(e.kind(), e.getMessage(), channel);
            close();
        } catch (IOException e) {
            close();
        }
    }

    /** Loop thread: closes a connection whose handshake has not finished by its deadline. */
    boolean expireHandshake(long now) {
        if (!peerReady && now - handshakeDeadline > 0) {
            stats.protocolError("handshake", "no ZMTP handshake within " + ZmtpLoop.HANDSHAKE_NANOS / 1_000_000 + " ms", channel);
            close();
            return true;
        }
        return peerReady;
    }

    private void onConnectable() throws IOException {
        if (!channel.finishConnect()) {
            return;
        }
        key.interestOps(SelectionKey.OP_READ);
        flush();
    }

    private void flush() throws IOException {
        synchronized (this) {
            while (!out.isEmpty()) {
                ByteBuffer head = out.peek();
                int before = head.remaining();
                channel.write(head);
                queued -= before - head.remaining();
                if (head.hasRemaining()) {
                    key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
                    return;
                }
                out.poll();
            }
        }
        key.interestOps(SelectionKey.OP_READ);
    }

    private void wantWrite() {
        if (key != null && key.isValid()) {
            key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
        }
    }

    private void read(ByteBuffer scratch) throws IOException, ZmtpException {
        scratch.clear();
        int n = channel.read(scratch);
        if (n < 0) {
            close();
            return;
        }
        decoder.feed(scratch.flip(), this);
        // As libzmq: our major version once the peer's signature is in, the rest and READY once its version is.
        if (!versionSent && decoder.greetingBytes() >= Zmtp.SIGNATURE_LENGTH) {
            versionSent = true;
            enqueue(ByteBuffer.wrap(Zmtp.greeting(), Zmtp.SIGNATURE_LENGTH, 1));
        }
        if (!greetingSent && decoder.greetingBytes() > Zmtp.SIGNATURE_LENGTH) {
            greetingSent = true;
            enqueue(ByteBuffer.wrap(Zmtp.greeting(), Zmtp.SIGNATURE_LENGTH + 1, Zmtp.GREETING_LENGTH - Zmtp.SIGNATURE_LENGTH - 1));
            enqueue(Zmtp.ready(socketType));
        }
        if (versionSent) {
            flush();
        }
        if (greetingSent && peerReady) {
            releaseHeld();
        }
    }

    private synchronized void enqueue(ByteBuffer data) {
        queued += data.remaining();
        out.add(data);
    }

    private void releaseHeld() throws IOException {
        synchronized (this) {
            if (held == null) {
                return;
            }
            out.addAll(held);
            held = null;
        }
        flush();
    }

    @Override
    public void message(List<byte[]> frames) throws ZmtpException {
        if (!peerReady) {
            throw new ZmtpException("order", "a message before the peer's READY");
        }
        handler.onMessage(this, frames);
    }

    @Override
    public void command(String name, byte[] body) throws ZmtpException {
        switch (name) {
            case "READY" -> {
                if (peerReady) {
                    throw new ZmtpException("order", "a second READY");
                }
                peerReady = true;
            }
            case "PING" -> send(Zmtp.pong(body));
            case "ERROR" -> close();
            // ZMTP 3.1 peers may subscribe with commands: handed on as the 3.0 message form (1 or 0, then the prefix).
            case "SUBSCRIBE" -> subscription(1, body, SUBSCRIBE.length);
            case "CANCEL" -> subscription(0, body, CANCEL.length);
            default -> { } // anything newer: nothing to do with the NULL mechanism
        }
    }

    private void subscription(int subscribe, byte[] body, int nameLength) throws ZmtpException {
        if (!peerReady) {
            throw new ZmtpException("order", "a subscription before the peer's READY");
        }
        byte[] message = new byte[body.length - nameLength + 1];
        message[0] = (byte) subscribe;
        System.arraycopy(body, nameLength, message, 1, body.length - nameLength);
        handler.onMessage(this, List.of(message));
    }

    /** The address an accepted connection comes from (kept after it closes); null for a dialled one. */
    public InetAddress source() {
        return source;
    }

    /** The peer's address, for logs; null once closed. */
    public String peer() {
        try {
            return String.valueOf(channel.getRemoteAddress());
        } catch (IOException e) {
            return null;
        }
    }

    /** Closes the socket from any thread; the handler hears of it once. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        loop.execute(decoder::release);
        synchronized (this) {
            out.clear();
            held = null;
            queued = 0;
        }
        loop.forget(this);
        stats.closed();
        handler.onClosed(this);
    }

    public boolean isClosed() {
        return closed.get();
    }
}
