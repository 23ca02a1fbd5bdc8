package io.drover.server.registries;

/** A registry that cannot be read; the message names the registry and where it was reading. */
public final class RegistryException extends RuntimeException {
    public RegistryException(String message, Throwable cause) {
        super(message, cause);
    }

    public RegistryException(String message) {
        super(message);
    }
}
