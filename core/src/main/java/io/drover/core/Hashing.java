package io.drover.core;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Hex digests: SHA-256 of packages, files and tokens, MD5 of rendered configs (as NodeMan compares them), SHA-1 of Salt topics. */
public final class Hashing {
    private Hashing() {
    }

    public static String sha256(byte[] bytes) {
        return HexFormat.of().formatHex(digest("SHA-256").digest(bytes));
    }

    /** Of the text's UTF-8 bytes. */
    public static String sha256(String text) {
        return sha256(text.getBytes(StandardCharsets.UTF_8));
    }

    /** Of everything the stream still holds; the caller closes it. */
    public static String sha256(InputStream in) throws IOException {
        return of("SHA-256", in);
    }

    public static String md5(String text) {
        return HexFormat.of().formatHex(md5Bytes(text));
    }

    /** The 16 bytes of the md5 of the text's UTF-8 bytes. */
    public static byte[] md5Bytes(String text) {
        return digest("MD5").digest(text.getBytes(StandardCharsets.UTF_8));
    }

    public static String md5(InputStream in) throws IOException {
        return of("MD5", in);
    }

    public static String sha1(String text) {
        return HexFormat.of().formatHex(digest("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
    }

    /** A digest to feed incrementally (a download hashed as it arrives). */
    public static MessageDigest sha256Digest() {
        return digest("SHA-256");
    }

    private static String of(String algorithm, InputStream in) throws IOException {
        MessageDigest digest = digest(algorithm);
        byte[] buffer = new byte[1 << 16];
        for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
            digest.update(buffer, 0, n);
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    private static MessageDigest digest(String algorithm) {
        try {
            return MessageDigest.getInstance(algorithm);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(algorithm + " is not available in this JDK", e);
        }
    }
}
