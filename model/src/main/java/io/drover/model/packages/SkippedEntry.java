package io.drover.model.packages;

/** An entry a registry holds but does not offer (a package that cannot be read, metadata that is not valid), and why. */
public record SkippedEntry(String registry, String entry, String reason) {
}
