package io.drover.transport.zmtp;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Encodes what a ZMTP 3.0 peer with the NULL mechanism sends (rfc.zeromq.org/spec/23): the 64-byte greeting, the
 * READY command, messages as frames, a SUB's subscriptions as messages starting with 1, and PONG.
 */
public final class Zmtp {
    public static final int MORE = 0x01;
    public static final int LONG = 0x02;
    public static final int COMMAND = 0x04;
    public static final int GREETING_LENGTH = 64;
    public static final int SIGNATURE_LENGTH = 10;

    private Zmtp() {
    }

    /** Signature (0xFF, eight bytes, 0x7F), version 3.0, mechanism NULL, not a server, zero filler. */
    public static byte[] greeting() {
        byte[] g = new byte[GREETING_LENGTH];
        g[0] = (byte) 0xFF;
        g[8] = 1;
        g[9] = 0x7F;
        g[10] = 3;
        g[11] = 0;
        byte[] mechanism = "NULL".getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(mechanism, 0, g, 12, mechanism.length);
        return g;
    }

    /** Whether the first 11 bytes of a greeting are ZMTP's signature and a major version of 3 or later. */
    static boolean acceptableSignature(byte[] g) {
        return g[0] == (byte) 0xFF && (g[9] & 1) == 1 && g[10] >= 3;
    }

    /** Whether a whole greeting names the NULL mechanism (the only one Salt uses). */
    static boolean nullMechanism(byte[] g) {
        return new String(g, 12, 20, StandardCharsets.US_ASCII).replace("\0", "").equals("NULL");
    }

    /** READY with the one property a NULL peer needs: {@code Socket-Type}. */
    public static ByteBuffer ready(String socketType) {
        byte[] name = "Socket-Type".getBytes(StandardCharsets.US_ASCII);
        byte[] value = socketType.getBytes(StandardCharsets.US_ASCII);
        ByteBuffer body = ByteBuffer.allocate(1 + 5 + 1 + name.length + 4 + value.length);
        body.put((byte) 5).put("READY".getBytes(StandardCharsets.US_ASCII));
        body.put((byte) name.length).put(name).putInt(value.length).put(value);
        return command(body.array());
    }

    /** PONG echoing a PING's context (the bytes after its name and two-byte TTL). */
    public static ByteBuffer pong(byte[] ping) {
        int contextAt = 1 + 4 + 2;
        int contextLength = Math.max(0, ping.length - contextAt);
        ByteBuffer body = ByteBuffer.allocate(1 + 4 + contextLength);
        body.put((byte) 4).put("PONG".getBytes(StandardCharsets.US_ASCII));
        if (contextLength > 0) {
            body.put(ping, contextAt, contextLength);
        }
        return command(body.array());
    }

    /** ZMTP 3.0 subscription: a one-frame message of 1 followed by the prefix. */
    public static ByteBuffer subscription(byte[] prefix) {
        byte[] body = new byte[prefix.length + 1];
        body[0] = 1;
        System.arraycopy(prefix, 0, body, 1, prefix.length);
        return message(body);
    }

    /**
     * A frame header in the 8-byte form announcing {@code size} bytes, whatever they are: what a peer may send, for
     * tools and tests that play hostile peers.
     */
    public static ByteBuffer longHeader(int flags, long size) {
        return ByteBuffer.allocate(9).put((byte) (flags | LONG)).putLong(size).flip();
    }

    /** The remaining bytes of each buffer, in order, as one array: what goes on the wire. */
    public static byte[] bytes(ByteBuffer... parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (ByteBuffer part : parts) {
            byte[] chunk = new byte[part.remaining()];
            part.get(chunk);
            out.writeBytes(chunk);
        }
        return out.toByteArray();
    }

    /** One message of the given frames, every frame but the last flagged MORE; flipped, ready to write. */
    public static ByteBuffer message(byte[]... frames) {
        int size = 0;
        for (byte[] f : frames) {
            size += header(f.length) + f.length;
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        for (int i = 0; i < frames.length; i++) {
            put(out, i < frames.length - 1 ? MORE : 0, frames[i]);
        }
        return out.flip();
    }

    private static ByteBuffer command(byte[] body) {
        ByteBuffer out = ByteBuffer.allocate(header(body.length) + body.length);
        put(out, COMMAND, body);
        return out.flip();
    }

    private static int header(int length) {
        return length > 255 ? 9 : 2;
    }

    private static void put(ByteBuffer out, int flags, byte[] body) {
        if (body.length > 255) {
            out.put((byte) (flags | LONG)).putLong(body.length);
        } else {
            out.put((byte) flags).put((byte) body.length);
        }
        out.put(body);
    }
}
