package io.drover.model.packages;

import java.time.OffsetDateTime;

/** A package in the server's store. {@code source} is "upload" or the registry it was imported from. */
public record PackageInfo(String name, String version, String category, String description, String sha256,
                          long sizeBytes, String source, OffsetDateTime uploadedAt, String path,
                          PackageMetadata metadata) {
}
