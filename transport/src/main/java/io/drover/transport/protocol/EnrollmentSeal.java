package io.drover.transport.protocol;

import io.drover.core.Hashing;
import java.nio.charset.StandardCharsets;

/**
 * What a Drover agent seals to the master's key when it enrolls ({@link Messages#ENROLL_SEALED}): its token bound to
 * the sign-in's id and public key. The sealed bytes travel in clear inside every sign-in the agent makes, so a token
 * sealed alone could be copied off the wire and sent with another key and id; bound, it admits only the agent that
 * sealed it.
 */
public final class EnrollmentSeal {
    private static final String VERSION = "b1:";

    private EnrollmentSeal() {
    }

    /** The plain text an agent seals: the version, the binding, the token. */
    public static byte[] plain(String id, String publicPem, String token) {
        return (VERSION + binding(id, publicPem) + ":" + token).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The token an opened seal holds for this sign-in's id and key; null when the seal is bound to another sign-in
     * (copied off the wire), or to none (an agent older than the binding).
     */
    public static String token(String opened, String id, String publicPem) {
        if (opened == null || id == null || publicPem == null || !opened.startsWith(VERSION)) {
            return null;
        }
        String expected = binding(id, publicPem);
        int colon = VERSION.length() + expected.length();
        if (opened.length() <= colon || opened.charAt(colon) != ':'
                || !java.security.MessageDigest.isEqual(opened.substring(VERSION.length(), colon).getBytes(StandardCharsets.US_ASCII),
                        expected.getBytes(StandardCharsets.US_ASCII))) {
            return null;
        }
        return opened.substring(colon + 1);
    }

    private static String binding(String id, String publicPem) {
        return Hashing.sha256(id + "\n" + publicPem);
    }
}
