package io.drover.cli;

/** A failure to report to the operator: printed as "error: message" and the command exits non-zero. */
public final class CliException extends RuntimeException {
    public CliException(String message) {
        super(message);
    }
}
