package io.drover.core.archive;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writes a ustar stream (GNU long-name records for names over 100 bytes). It writes what it is given: checking
 * names is the reader's job, so tests can also build hostile archives with it.
 */
public final class TarWriter implements AutoCloseable {
    private static final int BLOCK = 512;

    private final OutputStream out;

    public TarWriter(OutputStream out) {
        this.out = out;
    }

    public void file(String name, int mode, byte[] content) throws IOException {
        entry(name, '0', mode, content.length, "");
        out.write(content);
        pad(content.length);
    }

    public void directory(String name, int mode) throws IOException {
        entry(name.endsWith("/") ? name : name + "/", '5', mode, 0, "");
    }

    /** A symbolic ({@code '2'}), hard ({@code '1'}) or other content-less entry such as a device ({@code '3'}). */
    public void special(String name, char type, String linkName) throws IOException {
        entry(name, type, 0644, 0, linkName);
    }

    private void entry(String name, char type, int mode, long size, String linkName) throws IOException {
        byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
        if (nameBytes.length > 100) {
            header("././@LongLink", 'L', 0, nameBytes.length + 1, "");
            out.write(nameBytes);
            out.write(0);
            pad(nameBytes.length + 1);
        }
        header(name, type, mode, size, linkName);
    }

    private void header(String name, char type, int mode, long size, String linkName) throws IOException {
        byte[] h = new byte[BLOCK];
        put(h, 0, 100, name);
        put(h, 100, 8, String.format("%07o", mode));
        put(h, 108, 8, "0000000");
        put(h, 116, 8, "0000000");
        put(h, 124, 12, String.format("%011o", size));
        put(h, 136, 12, String.format("%011o", 0));
        h[156] = (byte) type;
        put(h, 157, 100, linkName);
        put(h, 257, 6, "ustar");
        put(h, 263, 2, "00");
        for (int i = 148; i < 156; i++) {
            h[i] = ' ';
        }
        long sum = 0;
        for (byte b : h) {
            sum += b & 0xFF;
        }
        put(h, 148, 7, String.format("%06o", sum));
        h[154] = 0;
        out.write(h);
    }

    private static void put(byte[] h, int offset, int length, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        System.arraycopy(bytes, 0, h, offset, Math.min(bytes.length, length));
    }

    private void pad(long size) throws IOException {
        out.write(new byte[(int) ((BLOCK - size % BLOCK) % BLOCK)]);
    }

    /** Writes the two zero blocks that end an archive (the underlying stream stays open). */
    @Override
    public void close() throws IOException {
        out.write(new byte[BLOCK * 2]);
        out.flush();
    }
}
