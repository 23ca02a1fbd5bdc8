package io.drover.model.packages;

/** Adds a registry: {@code type} local (a directory), http (an index.yaml) or git (url, path, ref). */
public record RegistryRequest(String name, String type, String url, String path, String ref) {
}
