package io.drover.server.addons;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.core.packages.Catalog.Candidate;
import io.drover.core.packages.DependencyResolver;
import io.drover.core.packages.DependencyResolver.Plan;
import io.drover.core.packages.DependencyResolver.Request;
import io.drover.core.packages.PackageArchive;
import io.drover.core.packages.PackageException;
import io.drover.core.packages.ParamsSchema;
import io.drover.core.packages.Version;
import io.drover.core.packages.VersionConstraint;
import io.drover.model.Json;
import io.drover.model.api.Problem.FieldError;
import io.drover.model.packages.AddonCatalog;
import io.drover.model.packages.AddonChange;
import io.drover.model.packages.AddonInfo;
import io.drover.model.packages.AddonSchema;
import io.drover.model.packages.AddonInfo.DependencyState;
import io.drover.model.packages.AddonRequest;
import io.drover.model.packages.AddonState;
import io.drover.model.packages.AddonStepAction;
import io.drover.model.packages.PackageInfo;
import io.drover.model.packages.PackageMetadata;
import io.drover.server.events.EventStore;
import io.drover.server.errors.DomainException;
import io.drover.server.packages.PackageStore;
import io.drover.server.registries.Registries;
import io.drover.server.registries.RegistryException;
import io.drover.server.registries.RegistryReader;
import io.drover.server.store.SecretBox;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import io.drover.server.addons.AddonStore.Enabled;
import io.drover.server.subscriptions.SubscriptionStore;
import org.jdbi.v3.core.Jdbi;

/**
 * Enables, upgrades and disables addons (docs/operations.md, "Plugin packages, registries and addons"): resolves the addon and its dependencies across the registries,
 * imports their packages into the store, checks and seals the parameters, renders NOTES. Everything is checked before
 * anything is written, so a request that fails changes nothing.
 */
public final class AddonService {
    private static final TypeReference<Map<String, Object>> PARAMS = new TypeReference<>() {
    };

    /** One enabled addon as stored. */

    /** A step of a plan with its package fetched and checked. */
    private record Fetched(DependencyResolver.Step step, byte[] tgz, PackageArchive archive, Map<String, Object> params) {
    }

    private final AddonStore repository = new AddonStore();
    private final SubscriptionStore subscriptions;
    private final Jdbi jdbi;
    private final PackageStore store;
    private final Registries registries;
    private final SecretBox secrets;
    private final EventStore events;
    private final Version serverVersion;
    private final NotesRenderer notes = new NotesRenderer();
    private final Clock clock;

    public AddonService(Jdbi jdbi, PackageStore store, Registries registries, SecretBox secrets, EventStore events,
                        Version serverVersion, SubscriptionStore subscriptions, Clock clock) {
        this.subscriptions = subscriptions;
        this.jdbi = jdbi;
        this.store = store;
        this.registries = registries;
        this.secrets = secrets;
        this.events = events;
        this.serverVersion = serverVersion;
        this.clock = clock;
    }

    public AddonChange enable(AddonRequest request) {
        Request wanted = parse(request.addon());
        if (enabled(wanted.name()).isPresent()) {
            throw DomainException.conflict("addon_enabled", "addon " + wanted.name() + " is already enabled at version "
                    + enabled(wanted.name()).get().version() + "; use addon upgrade to change its version or parameters");
        }
        Registries.Snapshot snapshot = registries.snapshot();
        Plan plan = resolve(snapshot, wanted, installed(null));
        List<Fetched> fetched = fetchAll(snapshot, plan, request.params() == null ? Map.of() : request.params(), null);
        return apply(plan, fetched, request.dry(), null);
    }

    public AddonChange upgrade(String name, AddonRequest request) {
        Enabled current = enabled(name).orElseThrow(() -> DomainException.notFound("enabled addon", name));
        Request wanted = request.addon() == null || request.addon().isBlank() ? new Request(null, name, null)
                : parse(request.addon().startsWith("@") ? name + request.addon() : request.addon());
        if (!wanted.name().equals(name)) {
            throw DomainException.invalid("addon", "names " + wanted.name() + ", but this upgrades " + name);
        }
        Registries.Snapshot snapshot = registries.snapshot();
        Plan plan = resolve(snapshot, wanted, installed(name));
        Map<String, Object> merged = new LinkedHashMap<>(openParams(current));
        if (request.params() != null) {
            merged.putAll(request.params());
        }
        List<Fetched> fetched = fetchAll(snapshot, plan, merged, current);
        return apply(plan, fetched, request.dry(), current);
    }

    public AddonInfo disable(String name, boolean force) {
        Enabled current = enabled(name).orElseThrow(() -> DomainException.notFound("enabled addon", name));
        List<String> dependents = new ArrayList<>();
        for (Enabled other : allEnabled()) {
            PackageMetadata m = store.get(other.name(), other.version()).metadata();
            if (m.dependencies().stream().anyMatch(d -> d.name().equals(name))) {
                dependents.add(other.name());
            }
        }
        if (!dependents.isEmpty() && !force) {
            throw DomainException.conflict("addon_in_use", "addon " + name + " is required by " + dependents
                    + "; disable them first, or pass --force");
        }
        List<Long> subscriptions = subscriptionsDeploying(name);
        if (!subscriptions.isEmpty() && !force) {
            throw DomainException.conflict("addon_in_use", "addon " + name + " is deployed by subscription(s) " + subscriptions
                    + "; delete them first, or pass --force");
        }
        AddonInfo before = status(name);
        jdbi.useTransaction(h -> {
            repository.delete(h, name);
            events.append(h, "drover/addon/" + name + "/disabled", Map.of("version", current.version(), "forced", force,
                    "required_by", dependents));
        });
        events.publishPending();
        return before;
    }

    /** One addon: installed version, registry, dependencies ✔/✘, masked parameters, and what is available. */
    public AddonInfo status(String name) {
        Optional<Enabled> current = enabled(name);
        Registries.Snapshot snapshot = current.isPresent() ? null : registries.snapshot();
        List<String> available = snapshot == null ? List.of() : snapshot.catalog().versions(name).stream()
                .sorted((a, b) -> b.version().compareTo(a.version())).map(c -> c.version().original()).toList();
        if (current.isEmpty()) {
            if (available.isEmpty()) {
                throw DomainException.notFound("addon", name + " (not enabled, and no registry offers it)");
            }
            return new AddonInfo(name, AddonState.DISABLED, null, null, available, null, List.of(), Map.of(), null, null);
        }
        return describe(current.get(), available);
    }

    /**
     * The parameter schema of a version of an addon (null: the enabled one, else the newest offered): from the
     * package store when stored, else from the package the registry serves (fetched and checked, not stored).
     */
    public AddonSchema schema(String name, String version) {
        Optional<Enabled> current = enabled(name);
        String wanted = version != null ? version : current.map(Enabled::version).orElse(null);
        if (wanted != null && store.list(name).stream().anyMatch(p -> p.version().equals(wanted))) {
            PackageInfo pkg = store.get(name, wanted);
            return new AddonSchema(name, wanted, current.map(Enabled::registry).orElse("store"), pkg.metadata().parameters());
        }
        Registries.Snapshot snapshot = registries.snapshot();
        Candidate c = snapshot.catalog().versions(name).stream()
                .filter(v -> wanted == null || v.version().original().equals(wanted))
                .max((a, b) -> a.version().compareTo(b.version()))
                .orElseThrow(() -> DomainException.notFound("addon", name + (wanted == null ? "" : " " + wanted)
                        + " (no registry offers it)"));
        return new AddonSchema(name, c.version().original(), c.registry(),
                fetch(snapshot, c).archive().metadata().parameters());
    }

    public AddonCatalog list() {
        Registries.Snapshot snapshot = registries.snapshot();
        Map<String, Enabled> enabled = new LinkedHashMap<>();
        allEnabled().forEach(e -> enabled.put(e.name(), e));
        Map<String, List<Candidate>> merged = snapshot.catalog().merged();
        List<String> names = new ArrayList<>(merged.keySet());
        enabled.keySet().stream().filter(n -> !merged.containsKey(n)).forEach(names::add);
        List<AddonInfo> addons = new ArrayList<>();
        for (String name : names.stream().sorted().toList()) {
            List<Candidate> versions = merged.getOrDefault(name, List.of());
            List<String> available = versions.stream().map(c -> c.version().original()).distinct().toList();
            Enabled e = enabled.get(name);
            String description = e != null ? store.get(e.name(), e.version()).description() : null;
            addons.add(new AddonInfo(name, e == null ? AddonState.DISABLED : AddonState.ENABLED, e == null ? null : e.version(),
                    e != null ? e.registry() : versions.isEmpty() ? null : versions.getFirst().registry(), available,
                    description, null, null, e == null ? null : e.enabledAt(), e == null ? null : e.updatedAt()));
        }
        return new AddonCatalog(addons, snapshot.skipped(), snapshot.unreadable());
    }

    private AddonInfo describe(Enabled e, List<String> available) {
        PackageInfo pkg = store.get(e.name(), e.version());
        Map<String, Version> installed = installed(null);
        List<DependencyState> deps = new ArrayList<>();
        for (PackageMetadata.Dependency d : pkg.metadata().dependencies()) {
            Version have = installed.get(d.name());
            boolean ok = have != null && VersionConstraint.parse(d.version()).allows(have);
            deps.add(new DependencyState(d.name(), d.version(), have == null ? null : have.original(), ok));
        }
        Map<String, Object> params = ParamsSchema.of(pkg.metadata().parameters()).masked(openParams(e));
        return new AddonInfo(e.name(), AddonState.ENABLED, e.version(), e.registry(), available, pkg.description(), deps, params,
                e.enabledAt(), e.updatedAt());
    }

    /** Subscriptions with a step that deploys the plugin. */
    private List<Long> subscriptionsDeploying(String plugin) {
        return subscriptions.list(null, plugin).stream().map(io.drover.model.subscriptions.SubscriptionInfo::id).toList();
    }

    private static Request parse(String addon) {
        if (addon == null || addon.isBlank()) {
            throw DomainException.invalid("addon", "is required: [registry/]name[@version]");
        }
        try {
            return Request.parse(addon);
        } catch (PackageException e) {
            throw DomainException.invalid("addon", e.getMessage());
        }
    }

    private Plan resolve(Registries.Snapshot snapshot, Request wanted, Map<String, Version> installed) {
        try {
            if (wanted.registry() != null && snapshot.unreadable().containsKey(wanted.registry())) {
                throw new PackageException(snapshot.unreadable().get(wanted.registry()));
            }
            return new DependencyResolver(snapshot.catalog(), installed, serverVersion).resolve(wanted);
        } catch (PackageException e) {
            List<String> problems = new ArrayList<>(e.problems());
            snapshot.skipped().stream().filter(s -> s.entry().startsWith(wanted.name())
                            && (wanted.registry() == null || wanted.registry().equals(s.registry())))
                    .forEach(s -> problems.add("registry " + s.registry() + " skips its entry " + s.entry() + ": " + s.reason()));
            snapshot.unreadable().forEach((registry, why) -> problems.add("registry " + registry + " could not be read: " + why));
            throw DomainException.unprocessable("unresolvable", String.join("; ", problems), problems.size() == 1 ? List.of()
                    : problems.stream().map(p -> new FieldError("addon", p)).toList());
        }
    }

    /** Fetches and checks every package of the plan and the parameters of each addon, before anything is written. */
    private List<Fetched> fetchAll(Registries.Snapshot snapshot, Plan plan, Map<String, Object> rootParams, Enabled upgrading) {
        List<Fetched> fetched = new ArrayList<>();
        for (DependencyResolver.Step step : plan.install()) {
            Package fetchedPackage = fetch(snapshot, step.candidate());
            Candidate c = step.candidate();
            PackageMetadata m = fetchedPackage.archive().metadata();
            boolean root = step == plan.requested();
            Map<String, Object> params;
            try {
                params = ParamsSchema.of(m.parameters()).apply(root ? rootParams : Map.of());
            } catch (PackageException e) {
                String detail = root ? String.join("; ", e.problems())
                        : "dependency " + c.name() + " needs parameters (" + String.join("; ", e.problems())
                                + "); enable it first with its parameters";
                throw DomainException.unprocessable("invalid_params", detail,
                        e.problems().stream().map(p -> new FieldError("params", p)).toList());
            }
            fetched.add(new Fetched(step, fetchedPackage.tgz(), fetchedPackage.archive(), params));
        }
        return fetched;
    }

    /** A package as a registry serves it. */
    private record Package(byte[] tgz, PackageArchive archive) {
    }

    /** Fetches a candidate's package from its registry and checks it is that name and version. */
    private static Package fetch(Registries.Snapshot snapshot, Candidate c) {
        RegistryReader.Entry entry = snapshot.entry(c.registry(), c.name(), c.version().toString());
        byte[] tgz;
        try {
            tgz = snapshot.readers().get(c.registry()).fetch(entry);
        } catch (RegistryException e) {
            throw DomainException.upstreamFailed("registry_unreadable", e.getMessage());
        } catch (PackageException e) {
            throw DomainException.unprocessable("invalid_package", "package " + c.name() + " " + c.version().original()
                    + " from registry " + c.registry() + " is invalid: " + String.join("; ", e.problems()), List.of());
        }
        PackageArchive archive;
        try {
            archive = PackageStore.inspect(tgz);
        } catch (DomainException e) {
            throw DomainException.unprocessable("invalid_package", "package " + c.name() + " " + c.version().original()
                    + " from registry " + c.registry() + " is invalid: " + e.getMessage(), e.errors());
        }
        PackageMetadata m = archive.metadata();
        if (!m.name().equals(c.name()) || !Version.parse(m.version()).sameAs(c.version())) {
            throw DomainException.unprocessable("invalid_package", "registry " + c.registry() + " lists " + c.name() + " "
                    + c.version().original() + " but its package holds " + m.name() + " " + m.version(), List.of());
        }
        return new Package(tgz, archive);
    }

    private AddonChange apply(Plan plan, List<Fetched> fetched, boolean dryRun, Enabled upgrading) {
        Fetched root = fetched.getLast();
        String rootVersion = Version.parse(root.archive().metadata().version()).toString();
        List<AddonChange.Step> steps = fetched.stream().map(f -> new AddonChange.Step(f.step().name(),
                f.step().candidate().version().toString(), f.step().candidate().registry(),
                f == root && upgrading != null ? (upgrading.version().equals(rootVersion) ? AddonStepAction.RECONFIGURE : AddonStepAction.UPGRADE)
                        : AddonStepAction.INSTALL, f.step().requiredBy())).toList();
        Map<String, String> kept = new LinkedHashMap<>();
        plan.alreadyInstalled().forEach((n, v) -> kept.put(n, v.toString()));
        String renderedNotes;
        try {
            renderedNotes = notes.render(root.step().name(), rootVersion, root.archive().notes(), root.params());
        } catch (PackageException e) {
            throw DomainException.unprocessable("invalid_notes", e.getMessage(), List.of());
        }
        if (dryRun) {
            return new AddonChange(root.step().name(), rootVersion, true, steps, kept, null);
        }
        for (Fetched f : fetched) {
            if (!f.step().candidate().registry().equals("store")) {
                store.importFrom(f.step().candidate().registry(), f.tgz());
            }
        }
        OffsetDateTime now = OffsetDateTime.now(clock);
        jdbi.useTransaction(h -> {
            for (Fetched f : fetched) {
                String name = f.step().name();
                String version = f.step().candidate().version().toString();
                String sealed = secrets.seal(json(f.params()));
                if (f == root && upgrading != null) {
                    repository.update(h, name, version, f.step().candidate().registry(), sealed, now);
                    events.append(h, "drover/addon/" + name + "/upgraded", Map.of("from", upgrading.version(), "to", version));
                } else {
                    repository.insert(h, name, version, f.step().candidate().registry(), sealed, now);
                    events.append(h, "drover/addon/" + name + "/enabled", Map.of("version", version,
                            "required_by", f.step().requiredBy()));
                }
            }
        });
        events.publishPending();
        return new AddonChange(root.step().name(), rootVersion, false, steps, kept, renderedNotes);
    }

    /** Enabled addons and their versions, leaving out {@code except} (the addon being upgraded). */
    private Map<String, Version> installed(String except) {
        Map<String, Version> installed = new HashMap<>();
        for (Enabled e : allEnabled()) {
            if (!e.name().equals(except)) {
                installed.put(e.name(), Version.parse(e.version()));
            }
        }
        return installed;
    }

    private Optional<Enabled> enabled(String name) {
        return jdbi.withHandle(h -> repository.find(h, name));
    }

    private List<Enabled> allEnabled() {
        return jdbi.withHandle(repository::all);
    }

    private Map<String, Object> openParams(Enabled e) {
        try {
            return Json.json().readValue(secrets.open(e.sealedParams()), PARAMS);
        } catch (JsonProcessingException ex) {
            throw new IllegalStateException("stored parameters of addon " + e.name() + " cannot be read", ex);
        }
    }

    private static String json(Map<String, Object> params) {
        try {
            return Json.json().writeValueAsString(params);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
