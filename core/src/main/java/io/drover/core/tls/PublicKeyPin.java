package io.drover.core.tls;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.Certificate;
import java.util.Base64;

/**
 * The pin of a certificate's key as curl's {@code --pinnedpubkey sha256//<pin>} and HPKP take it: base64 of the
 * SHA-256 of the DER SubjectPublicKeyInfo. A renewed certificate with the same key keeps its pin.
 */
public final class PublicKeyPin {
    private PublicKeyPin() {
    }

    public static String sha256(Certificate certificate) {
        try {
            byte[] spki = certificate.getPublicKey().getEncoded();
            return Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-256").digest(spki));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available in this JDK", e);
        }
    }
}
