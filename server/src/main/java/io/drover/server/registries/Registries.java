package io.drover.server.registries;

import io.drover.core.packages.Catalog;
import io.drover.core.packages.RegistryTransport;
import io.drover.model.packages.RegistryInfo;
import io.drover.model.packages.RegistryRequest;
import io.drover.model.packages.SkippedEntry;
import io.drover.model.api.Problem.FieldError;
import io.drover.server.errors.DomainException;
import io.drover.server.packages.PackageStore;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Jdbi;

/**
 * The configured registries, kept in the database in lookup order, and the readers for them. The package store is
 * always searched first, as the registry named "store".
 */
public final class Registries {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
    private static final Set<String> TYPES = Set.of("local", "http", "git");
    /** The registry table's column sizes. */
    private static final int MAX_URL = 2048;
    private static final int MAX_PATH = 1024;
    private static final int MAX_REF = 255;

    /** What the registries offer now, the entries they skip, and the ones that could not be read (name → why). */
    public record Snapshot(Catalog catalog, Map<String, RegistryReader.Entry> entries, List<SkippedEntry> skipped,
                           Map<String, String> unreadable, Map<String, RegistryReader> readers) {
        public RegistryReader.Entry entry(String registry, String name, String version) {
            return entries.get(registry + "/" + name + "@" + version);
        }
    }

    private final Jdbi jdbi;
    private final RegistryStore repository;
    private final PackageStore store;
    private final Path cloneDir;

    public Registries(Jdbi jdbi, PackageStore store, Path cloneDir, Clock clock) {
        this.jdbi = jdbi;
        this.repository = new RegistryStore(clock);
        this.store = store;
        this.cloneDir = cloneDir;
    }

    public List<RegistryInfo> list() {
        return jdbi.withHandle(repository::all);
    }

    public RegistryInfo add(RegistryRequest r) {
        List<FieldError> errors = new ArrayList<>();
        if (r.name() == null || !NAME.matcher(r.name()).matches()) {
            errors.add(new FieldError("name", "must be 1-64 letters, digits, '.', '_' or '-'"));
        } else if (r.name().equals(StoreRegistry.NAME)) {
            errors.add(new FieldError("name", "'store' is the package store's own name"));
        }
        if (r.type() == null || !TYPES.contains(r.type())) {
            errors.add(new FieldError("type", "must be local, http or git"));
        }
        if (r.url() == null || r.url().isBlank()) {
            errors.add(new FieldError("url", "is required: a directory (local), an index URL (http) or a repository (git)"));
        } else if (r.url().length() > MAX_URL) {
            errors.add(new FieldError("url", "is " + r.url().length() + " characters; at most " + MAX_URL));
        } else if ("http".equals(r.type())) {
            try {
                URI uri = URI.create(r.url().strip());
                if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null) {
                    errors.add(new FieldError("url", "must be an https:// (or http://) URL with a host"));
                } else if (RegistryTransport.refusal(r.url().strip(), r.acceptsClearText()) instanceof String why) {
                    errors.add(new FieldError("url", why));
                }
            } catch (IllegalArgumentException e) {
                errors.add(new FieldError("url", "is not a URL: " + e.getMessage()));
            }
        } else if ("git".equals(r.type()) && RegistryTransport.refusalForGit(r.url().strip(), r.acceptsClearText()) instanceof String why) {
            errors.add(new FieldError("url", why));
        } else if ("local".equals(r.type()) && !Files.isDirectory(Path.of(r.url()))) {
            errors.add(new FieldError("url", r.url() + " is not a directory on the server"));
        }
        if (r.path() != null && r.path().length() > MAX_PATH) {
            errors.add(new FieldError("path", "is " + r.path().length() + " characters; at most " + MAX_PATH));
        }
        if (r.ref() != null && r.ref().length() > MAX_REF) {
            errors.add(new FieldError("ref", "is " + r.ref().length() + " characters; at most " + MAX_REF));
        }
        if (r.ref() != null && !"git".equals(r.type())) {
            errors.add(new FieldError("ref", "applies to git registries only"));
        }
        if (r.acceptsClearText() && "local".equals(r.type())) {
            errors.add(new FieldError("insecure", "applies to http and git registries only"));
        }
        if (!errors.isEmpty()) {
            throw DomainException.invalid(errors);
        }
        String url = "local".equals(r.type()) ? Path.of(r.url()).toAbsolutePath().normalize().toString() : r.url().strip();
        jdbi.useTransaction(h -> {
            if (repository.find(h, r.name()).isPresent()) {
                throw DomainException.conflict("registry_exists", "registry " + r.name() + " already exists");
            }
            repository.append(h, r.name(), r.type(), url, r.path(), r.ref(), r.acceptsClearText());
        });
        return get(r.name());
    }

    public RegistryInfo get(String name) {
        return jdbi.withHandle(h -> repository.find(h, name)).orElseThrow(() -> DomainException.notFound("registry", name));
    }

    public RegistryInfo remove(String name) {
        RegistryInfo info = get(name);
        jdbi.useHandle(h -> repository.delete(h, name));
        return info;
    }

    /** Reads every registry (the store first); one that fails is reported, not fatal. */
    public Snapshot snapshot() {
        Map<String, RegistryReader> readers = new LinkedHashMap<>();
        readers.put(StoreRegistry.NAME, new StoreRegistry(store));
        for (RegistryInfo r : list()) {
            readers.put(r.name(), reader(r));
        }
        List<Catalog.Listing> listings = new ArrayList<>();
        Map<String, RegistryReader.Entry> entries = new LinkedHashMap<>();
        Map<String, String> unreadable = new LinkedHashMap<>();
        List<SkippedEntry> skipped = new ArrayList<>();
        for (RegistryReader reader : readers.values()) {
            try {
                RegistryReader.Listing listing = reader.list();
                List<RegistryReader.Entry> list = listing.entries();
                listing.skipped().forEach(s -> skipped.add(new SkippedEntry(reader.name(), s.path(), s.reason())));
                listings.add(new Catalog.Listing(reader.name(), list.stream().map(RegistryReader.Entry::candidate).toList()));
                for (RegistryReader.Entry e : list) {
                    entries.putIfAbsent(reader.name() + "/" + e.candidate().name() + "@" + e.candidate().version(), e);
                }
            } catch (RegistryException e) {
                unreadable.put(reader.name(), e.getMessage());
                listings.add(new Catalog.Listing(reader.name(), List.of()));
            }
        }
        return new Snapshot(Catalog.of(listings), entries, skipped, unreadable, readers);
    }

    private RegistryReader reader(RegistryInfo r) {
        // A Git registry added before the rule on addresses (over SSH, say) is reported with why; an HTTP registry
        // checks each address it asks itself.
        if ("git".equals(r.type()) && RegistryTransport.refusalForGit(r.url(), r.insecure()) instanceof String why) {
            return new RefusedRegistry(r.name(), "registry " + r.name() + ": " + r.url() + " " + why);
        }
        return switch (r.type()) {
            case "local" -> new LocalRegistry(r.name(), Path.of(r.url()));
            case "http" -> new HttpRegistry(r.name(), r.url(), r.insecure());
            case "git" -> new GitRegistry(r.name(), r.url(), r.path(), r.ref(), cloneDir.resolve(r.name()));
            default -> throw new IllegalStateException("registry " + r.name() + " has an unknown type " + r.type());
        };
    }

    /** A registry the server does not read: every call fails with why. */
    private record RefusedRegistry(String name, String why) implements RegistryReader {
        @Override
        public Listing list() {
            throw new RegistryException(why);
        }

        @Override
        public byte[] readFile(String relativePath) {
            throw new RegistryException(why);
        }

        @Override
        public byte[] fetch(Entry entry) {
            throw new RegistryException(why);
        }
    }
}
