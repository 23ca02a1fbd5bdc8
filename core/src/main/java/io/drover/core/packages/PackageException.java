package io.drover.core.packages;

import java.util.List;

/** A package, version, constraint or dependency that cannot be used; the message names what and why. */
public final class PackageException extends RuntimeException {
    private final List<String> problems;

    public PackageException(String message) {
        this(List.of(message));
    }

    public PackageException(List<String> problems) {
        super(String.join("; ", problems));
        this.problems = List.copyOf(problems);
    }

    /** Every problem found, not only the first (validation collects them all). */
    public List<String> problems() {
        return problems;
    }
}
