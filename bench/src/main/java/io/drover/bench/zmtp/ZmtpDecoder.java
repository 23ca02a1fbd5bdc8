package io.drover.bench.zmtp;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a ZMTP 3 byte stream as it arrives in pieces: the peer's greeting, then frames, handed on as whole
 * messages or commands. Keeps only the bytes of an unfinished frame between reads.
 */
final class ZmtpDecoder {
    /** Receives what the stream carries. */
    interface Sink {
        void message(List<byte[]> frames);

        /** A command: its name and its whole body (name included). */
        void command(String name, byte[] body);
    }

    /** The largest frame accepted; a fileserver chunk is far smaller. */
    static final long MAX_FRAME = 64L << 20;
    private static final byte[] NOTHING = new byte[0];

    private boolean greeted;
    private byte[] carry = NOTHING;
    private final List<byte[]> parts = new ArrayList<>();

    /**
     * Consumes every byte of {@code in} (complete frames are delivered, the rest kept for the next call).
     *
     * @throws ProtocolException when the stream is not ZMTP 3 with the NULL mechanism or a frame is oversize
     */
    void feed(ByteBuffer in, Sink sink) throws ProtocolException {
        ByteBuffer buf = in;
        if (carry.length > 0) {
            buf = ByteBuffer.allocate(carry.length + in.remaining()).put(carry).put(in).flip();
        }
        while (true) {
            int at = buf.position();
            int available = buf.remaining();
            if (!greeted) {
                if (available < Zmtp.GREETING_LENGTH) {
                    break;
                }
                if (!Zmtp.acceptableGreeting(buf, at)) {
                    throw new ProtocolException("the peer does not speak ZMTP 3 with the NULL mechanism");
                }
                buf.position(at + Zmtp.GREETING_LENGTH);
                greeted = true;
                continue;
            }
            if (available < 2) {
                break;
            }
            int flags = buf.get(at) & 0xFF;
            if ((flags & ~(Zmtp.MORE | Zmtp.LONG | Zmtp.COMMAND)) != 0) {
                throw new ProtocolException("bad frame flags " + flags);
            }
            boolean isLong = (flags & Zmtp.LONG) != 0;
            int header = isLong ? 9 : 2;
            if (available < header) {
                break;
            }
            long size = isLong ? buf.getLong(at + 1) : buf.get(at + 1) & 0xFF;
            if (size < 0 || size > MAX_FRAME) {
                throw new ProtocolException("frame of " + size + " bytes is over the limit of " + MAX_FRAME);
            }
            if (available - header < size) {
                break;
            }
            byte[] body = new byte[(int) size];
            buf.get(at + header, body);
            buf.position(at + header + (int) size);
            if ((flags & Zmtp.COMMAND) != 0) {
                int nameLength = body.length == 0 ? 0 : Math.min(body[0] & 0xFF, body.length - 1);
                sink.command(new String(body, 1, nameLength, StandardCharsets.US_ASCII), body);
            } else {
                parts.add(body);
                if ((flags & Zmtp.MORE) == 0) {
                    sink.message(List.copyOf(parts));
                    parts.clear();
                }
            }
        }
        carry = buf.hasRemaining() ? copyRest(buf) : NOTHING;
    }

    /** Whether the peer's signature and major version (the first 11 bytes of its greeting) have arrived. */
    boolean sawVersion() {
        return greeted || carry.length > Zmtp.SIGNATURE_LENGTH;
    }

    private static byte[] copyRest(ByteBuffer buf) {
        byte[] rest = new byte[buf.remaining()];
        buf.get(rest);
        return rest;
    }

    /** The byte stream broke the protocol; the connection is closed. */
    static final class ProtocolException extends Exception {
        ProtocolException(String message) {
            super(message);
        }
    }
}
