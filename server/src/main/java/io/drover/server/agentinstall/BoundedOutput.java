package io.drover.server.agentinstall;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/** Keeps the first {@code max} bytes written and counts the rest: a host cannot fill the server's memory. */
final class BoundedOutput extends OutputStream {
    private final byte[] kept;
    private int size;
    private long dropped;

    BoundedOutput(int max) {
        this.kept = new byte[max];
    }

    @Override
    public synchronized void write(int b) {
        if (size < kept.length) {
            kept[size++] = (byte) b;
        } else {
            dropped++;
        }
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
        int take = Math.min(len, kept.length - size);
        System.arraycopy(b, off, kept, size, take);
        size += take;
        dropped += len - take;
    }

    synchronized String text() {
        return new String(kept, 0, size, StandardCharsets.UTF_8);
    }

    synchronized long dropped() {
        return dropped;
    }
}
