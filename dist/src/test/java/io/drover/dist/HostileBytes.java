package io.drover.dist;

import io.drover.transport.zmtp.Zmtp;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;

/** Hand-made ZMTP bytes for attacks. */
final class HostileBytes {
    private HostileBytes() {
    }

    static byte[] concat(ByteBuffer... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (ByteBuffer b : parts) {
            byte[] a = new byte[b.remaining()];
            b.get(a);
            out.writeBytes(a);
        }
        return out.toByteArray();
    }

    /** A message frame header announcing {@code size} bytes (the 8-byte form). */
    static ByteBuffer longHeader(long size) {
        return ByteBuffer.allocate(9).put((byte) Zmtp.LONG).putLong(size).flip();
    }
}
