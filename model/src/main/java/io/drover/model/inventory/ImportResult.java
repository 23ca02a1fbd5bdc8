package io.drover.model.inventory;

/** What an import changed: counts of created and updated objects, and of those left as they were. */
public record ImportResult(int created, int updated, int unchanged) {
}
