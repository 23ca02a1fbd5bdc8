package io.drover.model.inventory;

/** How far a bulk import has written: records written so far of the document's total. */
public record ImportProgressLine(int written, int total) {
}
