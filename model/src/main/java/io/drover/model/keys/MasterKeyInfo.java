package io.drover.model.keys;

/**
 * The server's master key, which agents pin: its sha256 fingerprint (what {@code drover agent --master-finger} takes)
 * and the public key itself (PEM).
 */
public record MasterKeyInfo(String fingerprint, String publicKey) {
}
