package io.drover.core.archive;

/** An archive that is malformed or unsafe to extract; the message names the entry and the problem. */
public final class ArchiveException extends RuntimeException {
    public ArchiveException(String message) {
        super(message);
    }
}
