package io.drover.model.packages;

/**
 * Adds a registry: {@code type} local (a directory), http (an index.yaml) or git (url, path, ref). {@code insecure}
 * true accepts an address read in clear over the network (http://, git://); it is refused otherwise.
 */
public record RegistryRequest(String name, String type, String url, String path, String ref, Boolean insecure) {
    public RegistryRequest(String name, String type, String url, String path, String ref) {
        this(name, type, url, path, ref, null);
    }

    public boolean acceptsClearText() {
        return Boolean.TRUE.equals(insecure);
    }
}
