package io.drover.core.tls;

/** A PEM text that does not hold what was asked for; the message says what is wrong, the caller names the file. */
public final class PemException extends IllegalArgumentException {
    public PemException(String message) {
        super(message);
    }
}
