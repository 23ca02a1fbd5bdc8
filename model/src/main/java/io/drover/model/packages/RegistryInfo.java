package io.drover.model.packages;

import java.time.OffsetDateTime;

/**
 * A configured registry; {@code position} is its place in the lookup order (1 is searched first); {@code insecure}:
 * the operator accepted reading it in clear over the network.
 */
public record RegistryInfo(String name, String type, String url, String path, String ref, int position,
                           OffsetDateTime createdAt, boolean insecure) {
}
