package io.drover.transport.crypto;

/** A message that fails a cryptographic check (HMAC, signature, nonce, serial): dropped, never trusted. */
public final class InvalidMessageException extends RuntimeException {
    public InvalidMessageException(String message) {
        super(message);
    }
}
