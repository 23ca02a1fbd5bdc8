package io.drover.server.registries;

import io.drover.core.packages.Catalog.Candidate;
import java.util.List;

/**
 * One kind of registry (local directory, HTTP index, Git, the package store): list what it offers, read a file by
 * its path relative to the registry, and fetch one version as a package. Failures are {@link RegistryException}s
 * that name the registry and the URL or path.
 */
public interface RegistryReader {
    /** One version the registry offers and where it lives, relative to the registry (sha256 when the index says). */
    record Entry(Candidate candidate, String relativePath, String sha256) {
    }

    /** An entry the registry holds that cannot be offered: its path in the registry and why. */
    record Skipped(String path, String reason) {
    }

    /** What a registry offers, and what it holds but skips. */
    record Listing(List<Entry> entries, List<Skipped> skipped) {
        public Listing {
            entries = List.copyOf(entries);
            skipped = List.copyOf(skipped);
        }
    }

    String name();

    /** Every addon version the registry offers, and the entries it skips with the reason. */
    Listing list();

    /** A file of the registry by its relative path. */
    byte[] readFile(String relativePath);

    /** The package (.tgz) of one listed version. */
    byte[] fetch(Entry entry);
}
