package io.drover.server.registries;

import io.drover.core.Hashing;
import io.drover.core.packages.Catalog.Candidate;
import io.drover.core.packages.RegistryTransport;
import io.drover.core.packages.Version;
import io.drover.model.Json;
import io.drover.model.packages.PackageMetadata.Dependency;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * An HTTP registry with a Helm-style {@code index.yaml}: {@code entries: {name: [{version, urls, sha256 (or
 * digest), dependencies, system}]}}. Relative urls are resolved against the index; downloads are checked against the
 * sha256 the index gives.
 */
final class HttpRegistry implements RegistryReader {
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);
    private static final long MAX_BYTES = 1L << 30;

    private static final int MAX_REDIRECTS = 5;

    private final String name;
    private final URI index;
    private final HttpClient http;
    private final long maxBytes;
    private final boolean insecure;

    HttpRegistry(String name, String url, boolean insecure) {
        this(name, url, insecure, MAX_BYTES);
    }

    HttpRegistry(String name, String url, boolean insecure, long maxBytes) {
        this.maxBytes = maxBytes;
        this.name = name;
        this.insecure = insecure;
        String base = url.endsWith(".yaml") || url.endsWith(".yml") ? url : (url.endsWith("/") ? url : url + "/") + "index.yaml";
        this.index = URI.create(base);
        // Redirects are followed here, each checked as the first address is (an https index cannot send a download
        // to http:// on another host).
        this.http = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).followRedirects(HttpClient.Redirect.NEVER).build();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    @SuppressWarnings("unchecked")
    public Listing list() {
        Map<String, Object> doc;
        try {
            doc = Json.yaml().readValue(get(index), Map.class);
        } catch (IOException e) {
            throw new RegistryException("registry " + name + ": " + index + " is not a valid index.yaml: " + e.getMessage(), e);
        }
        if (doc == null || !(doc.get("entries") instanceof Map<?, ?> entries)) {
            throw new RegistryException("registry " + name + ": " + index + " has no 'entries' mapping");
        }
        List<Entry> list = new ArrayList<>();
        List<Skipped> skipped = new ArrayList<>();
        for (Map.Entry<?, ?> addon : entries.entrySet()) {
            String addonName = String.valueOf(addon.getKey());
            if (!(addon.getValue() instanceof List<?> versions)) {
                skipped.add(new Skipped(addonName, "its entry is not a list of versions"));
                continue;
            }
            for (int i = 0; i < versions.size(); i++) {
                Object item = versions.get(i);
                try {
                    if (!(item instanceof Map<?, ?> v)) {
                        throw new RegistryException("is not a mapping");
                    }
                    list.add(entry(addonName, (Map<String, Object>) v));
                } catch (RegistryException e) {
                    String version = item instanceof Map<?, ?> v && v.get("version") != null ? "@" + v.get("version") : "[" + i + "]";
                    skipped.add(new Skipped(addonName + version, e.getMessage()));
                }
            }
        }
        return new Listing(list, skipped);
    }

    @SuppressWarnings("unchecked")
    private Entry entry(String addon, Map<String, Object> v) {
        Version version = Version.tryParse(String.valueOf(v.get("version")));
        if (version == null) {
            throw new RegistryException("version '" + v.get("version") + "' is not a version");
        }
        if (!(v.get("urls") instanceof List<?> urls) || urls.isEmpty()) {
            throw new RegistryException("has no urls");
        }
        List<Dependency> deps = new ArrayList<>();
        if (v.get("dependencies") instanceof List<?> ds) {
            for (Object d : ds) {
                if (d instanceof Map<?, ?> dep && dep.get("name") != null) {
                    deps.add(new Dependency(String.valueOf(dep.get("name")),
                            dep.get("version") == null ? null : String.valueOf(dep.get("version"))));
                }
            }
        }
        String system = null;
        if (v.get("system") instanceof Map<?, ?> sys && sys.get("drover") != null) {
            system = String.valueOf(sys.get("drover"));
        } else if (v.get("annotations") instanceof Map<?, ?> annotations && annotations.get("system.drover") != null) {
            system = String.valueOf(annotations.get("system.drover"));
        }
        Object sha = v.get("sha256") != null ? v.get("sha256") : v.get("digest");
        if (sha != null && !(sha instanceof String)) {
            throw new RegistryException("its sha256 is a number (" + sha + "); write it as quoted text");
        }
        String entryName = v.get("name") == null ? addon : String.valueOf(v.get("name"));
        return new Entry(new Candidate(entryName, version, name, deps, system), String.valueOf(urls.getFirst()),
                sha == null ? null : String.valueOf(sha).toLowerCase(java.util.Locale.ROOT));
    }

    @Override
    public byte[] readFile(String relativePath) {
        return get(index.resolve(relativePath));
    }

    @Override
    public byte[] fetch(Entry entry) {
        URI url = index.resolve(entry.relativePath());
        byte[] bytes = get(url);
        if (entry.sha256() != null) {
            String actual = Hashing.sha256(bytes);
            if (!actual.equals(entry.sha256())) {
                throw new RegistryException("registry " + name + ": " + url + " has sha256 " + actual
                        + " but the index says " + entry.sha256());
            }
        }
        return bytes;
    }

    /** The body of a GET, read only up to the limit: a registry that sends more is refused before it fills the heap. */
    private byte[] get(URI url) {
        try {
            HttpResponse<java.io.InputStream> response = follow(url);
            try (java.io.InputStream body = response.body()) {
                if (response.statusCode() != 200) {
                    throw new RegistryException("registry " + name + ": GET " + url + " answered " + response.statusCode());
                }
                long announced = response.headers().firstValueAsLong("Content-Length").orElse(-1);
                byte[] bytes = announced > maxBytes ? null : body.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
                if (bytes == null || bytes.length > maxBytes) {
                    throw new RegistryException("registry " + name + ": " + url + " is larger than " + maxBytes + " bytes");
                }
                return bytes;
            }
        } catch (IOException e) {
            throw new RegistryException("registry " + name + ": GET " + url + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RegistryException("registry " + name + ": GET " + url + " was interrupted", e);
        } catch (IllegalArgumentException e) {
            throw new RegistryException("registry " + name + ": " + url + " is not a usable URL: " + e.getMessage(), e);
        }
    }

    /** The response at the end of up to {@link #MAX_REDIRECTS} redirects, each address checked before it is asked. */
    private HttpResponse<java.io.InputStream> follow(URI first) throws IOException, InterruptedException {
        URI url = first;
        for (int hop = 0; ; hop++) {
            if (RegistryTransport.refusal(url.toString(), insecure) instanceof String why) {
                throw new RegistryException("registry " + name + ": " + (hop == 0 ? "" : first + " redirects to ") + url + " " + why);
            }
            HttpResponse<java.io.InputStream> response = http.send(HttpRequest.newBuilder(url).timeout(REQUEST_TIMEOUT).GET().build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            int status = response.statusCode();
            if (status != 301 && status != 302 && status != 303 && status != 307 && status != 308) {
                return response;
            }
            response.body().close();
            String location = response.headers().firstValue("Location").orElse(null);
            if (location == null || hop == MAX_REDIRECTS) {
                throw new RegistryException("registry " + name + ": GET " + first + " answered " + status
                        + (location == null ? " without a Location" : " after " + MAX_REDIRECTS + " redirects"));
            }
            url = url.resolve(location);
        }
    }
}
