package io.drover.server.inventory;

/** Told how far a bulk import has written, after the document was checked and before the transaction commits. */
@FunctionalInterface
public interface ImportProgress {
    ImportProgress NONE = (written, total) -> { };

    /** How often progress is reported, in records. */
    int EVERY = 1_000;

    void written(int written, int total);
}
