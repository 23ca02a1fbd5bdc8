package io.drover.transport.crypto;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Cryptographic randomness for IVs, nonces and keys without one global lock. The default {@code SecureRandom} on
 * Linux (NativePRNG) serialises every caller in the process on a single static lock; a thousand minions encrypting at
 * once queued behind it. Here independent DRBG instances are striped and a caller takes one at random.
 */
public final class Randomness {
    private static final SecureRandom[] STRIPES = new SecureRandom[16];

    static {
        for (int i = 0; i < STRIPES.length; i++) {
            try {
                STRIPES[i] = SecureRandom.getInstance("DRBG");
            } catch (NoSuchAlgorithmException e) {
                STRIPES[i] = new SecureRandom();
            }
        }
    }

    private Randomness() {
    }

    public static void nextBytes(byte[] bytes) {
        STRIPES[ThreadLocalRandom.current().nextInt(STRIPES.length)].nextBytes(bytes);
    }

    /** 32 hex digits of fresh randomness, the shape of Salt's {@code uuid4().hex} nonces. */
    public static String hexNonce() {
        byte[] bytes = new byte[16];
        nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }
}
