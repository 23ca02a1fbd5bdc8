package io.drover.bench.zmtp;

import java.io.IOException;
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
 * One ZMTP connection on a {@link ZmtpLoop}: the loop reads and decodes it; any thread may send. A send writes
 * straight to the socket when nothing is queued (the usual case for small frames) and otherwise queues for the
 * loop to flush. The handshake goes as ZeroMQ's own: the signature first, the rest of the greeting and READY once
 * the peer's version has arrived, messages only after the peer's READY (JeroMQ 0.6 takes a message that arrives
 * before it has sent its own READY for a second handshake command and drops the connection); sends wait till then.
 */
public final class ZmtpConnection implements ZmtpDecoder.Sink {
    /** What the connection delivers; called on the loop thread, so it must not block. */
    public interface Handler {
        void onMessage(List<byte[]> frames);

        /** The connection is closed (refused, reset, protocol error, or {@link #close()}); called once. */
        void onClosed();
    }

    private final ZmtpLoop loop;
    private final SocketChannel channel;
    private final Handler handler;
    private final ZmtpDecoder decoder = new ZmtpDecoder();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Guarded by this. */
    private final ArrayDeque<ByteBuffer> out = new ArrayDeque<>();
    /** Guarded by this: messages held back until the peer's READY; null since then. */
    private ArrayDeque<ByteBuffer> held = new ArrayDeque<>();
    /** Loop thread only. */
    private final String socketType;
    private boolean greetingSent;
    private boolean peerReady;
    /** Loop thread only. */
    private SelectionKey key;

    ZmtpConnection(ZmtpLoop loop, SocketChannel channel, String socketType, Handler handler) {
        this.loop = loop;
        this.channel = channel;
        this.socketType = socketType;
        this.handler = handler;
        out.add(ByteBuffer.wrap(Zmtp.greeting(), 0, Zmtp.SIGNATURE_LENGTH));
    }

    /** Sends one encoded message or command; false when the connection is closed. */
    boolean send(ByteBuffer data) {
        synchronized (this) {
            if (closed.get()) {
                return false;
            }
            if (held != null) {
                held.add(data);
                return true;
            }
            if (!out.isEmpty()) { // (not held: the peer's READY came, so the connection is up)
                out.add(data);
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
                loop.execute(this::wantWrite);
            }
            return true;
        }
    }

    /** Sends a message of the given frames. */
    public boolean send(byte[]... frames) {
        return send(Zmtp.message(frames));
    }

    /** Loop thread: starts connecting. */
    void start(Selector selector, InetSocketAddress address) {
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

    /** Loop thread: the selector says this connection is ready for {@code ops}. */
    void onReady(int ops, ByteBuffer scratch) {
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
        } catch (IOException | ZmtpDecoder.ProtocolException | RuntimeException e) {
            close();
        }
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
                channel.write(head);
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

    private void read(ByteBuffer scratch) throws IOException, ZmtpDecoder.ProtocolException {
        scratch.clear();
        int n = channel.read(scratch);
        if (n < 0) {
            close();
            return;
        }
        decoder.feed(scratch.flip(), this);
        if (!greetingSent && decoder.sawVersion()) {
            greetingSent = true;
            byte[] greeting = Zmtp.greeting();
            synchronized (this) {
                out.add(ByteBuffer.wrap(greeting, Zmtp.SIGNATURE_LENGTH, greeting.length - Zmtp.SIGNATURE_LENGTH));
                out.add(Zmtp.ready(socketType));
            }
            flush();
        }
        if (greetingSent && peerReady) {
            releaseHeld();
        }
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
    public void message(List<byte[]> frames) {
        handler.onMessage(frames);
    }

    @Override
    public void command(String name, byte[] body) {
        switch (name) {
            case "READY" -> peerReady = true;
            case "PING" -> send(Zmtp.pong(body));
            case "ERROR" -> close();
            default -> { } // anything newer: nothing to do for a NULL-mechanism client
        }
    }

    /** Closes the socket from any thread; the handler hears of it once. */
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        handler.onClosed();
    }
}
