package io.drover.server.config;

/** A setting that cannot be used, with a message naming the setting, where it came from and why. */
public final class ConfigException extends RuntimeException {
    public ConfigException(String message) {
        super(message);
    }
}
