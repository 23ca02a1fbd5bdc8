package io.drover.core.match;

/** A target expression that cannot be parsed: the message names the expression and what is wrong. */
public final class TargetException extends IllegalArgumentException {
    public TargetException(String message) {
        super(message);
    }
}
