package io.drover.cli;

import io.drover.model.packages.AddonCatalog;
import io.drover.model.packages.AddonChange;
import io.drover.model.packages.AddonInfo;
import io.drover.model.packages.AddonRequest;
import io.drover.model.packages.PackageInfo;
import io.drover.model.packages.SkippedEntry;
import io.drover.cli.Output.Column;
import io.drover.model.Json;
import io.drover.model.packages.PackageMetadata;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code drover addon list|enable|upgrade|disable|status}. */
@Command(name = "addon", description = "Addons: versioned plugins from registries, enabled with their dependencies.",
        subcommands = {AddonCommand.ListAddons.class, AddonCommand.Enable.class, AddonCommand.Upgrade.class,
                AddonCommand.Disable.class, AddonCommand.Status.class})
public final class AddonCommand {
    static final List<Column<AddonInfo>> COLUMNS = List.of(Column.of("NAME", AddonInfo::name), Column.of("STATUS", AddonInfo::status),
            Column.of("INSTALLED", AddonInfo::installedVersion), Column.of("REGISTRY", AddonInfo::registry),
            new Column<>("AVAILABLE", n -> String.join(", ", orNone(n.availableVersions()))));
    static final List<Column<NumberedStep>> STEPS = List.of(Column.of("STEP", NumberedStep::n),
            Column.of("ADDON", s -> s.step().name()), Column.of("VERSION", s -> s.step().version()),
            Column.of("REGISTRY", s -> s.step().registry()), Column.of("ACTION", s -> s.step().action()),
            new Column<>("REQUIRED BY", s -> String.join(", ", orNone(s.step().requiredBy()))));

    /** A step of an addon change with its place in the install order, from 1. */
    record NumberedStep(int n, AddonChange.Step step) {
    }

    /** Parameters from {@code -f values.yaml} then {@code --set key=value} (dotted keys nest; values read as YAML). */
    static final class ParamOptions {
        @Option(names = "--set", paramLabel = "KEY=VALUE", description = "A parameter (repeatable).")
        List<String> set = new ArrayList<>();
        @Option(names = {"-f", "--values"}, paramLabel = "FILE", description = "Parameters from a YAML file.")
        Path values;

        @SuppressWarnings("unchecked")
        Map<String, Object> params() {
            Map<String, Object> params = new LinkedHashMap<>();
            if (values != null) {
                try {
                    Object read = Json.yaml().readValue(values.toFile(), Object.class);
                    if (read != null && !(read instanceof Map<?, ?>)) {
                        throw new CliException(values + " must hold a mapping of parameter names to values");
                    }
                    if (read != null) {
                        params.putAll((Map<String, Object>) read);
                    }
                } catch (IOException e) {
                    throw new CliException("cannot read " + values + ": " + e.getMessage());
                }
            }
            for (String item : set) {
                int eq = item.indexOf('=');
                if (eq <= 0) {
                    throw new CliException("--set " + item + ": expected KEY=VALUE");
                }
                String[] keys = item.substring(0, eq).split("\\.");
                Map<String, Object> at = params;
                for (int i = 0; i < keys.length - 1; i++) {
                    at = (Map<String, Object>) at.compute(keys[i], (k, v) -> v instanceof Map<?, ?> ? v : new LinkedHashMap<>());
                }
                at.put(keys[keys.length - 1], scalar(item.substring(eq + 1)));
            }
            return params;
        }

        private static Object scalar(String text) {
            if (text.isEmpty()) {
                return "";
            }
            try {
                Object value = Json.yaml().readValue(text, Object.class);
                return value instanceof Map<?, ?> || value instanceof List<?> || value == null ? text : value;
            } catch (IOException e) {
                return text;
            }
        }
    }

    @Command(name = "list", description = "Addons the registries offer and the ones enabled.")
    static final class ListAddons implements Callable<Integer> {
        @Mixin ClientOptions client;

        @Override
        public Integer call() {
            AddonCatalog catalog = client.client().get("/api/v1/addons", AddonCatalog.class);
            client.output().print(catalog, orNone(catalog.addons()), COLUMNS);
            if (client.output().format() == Output.Format.table) {
                for (SkippedEntry s : orNone(catalog.skipped())) {
                    client.out().println("warning: registry " + s.registry() + ": " + s.entry() + " is skipped: " + s.reason());
                }
                (catalog.unreadableRegistries() == null ? Map.<String, String>of() : catalog.unreadableRegistries()).forEach((registry, why) ->
                        client.out().println("warning: registry " + registry + " could not be read: " + why));
            }
            return 0;
        }
    }

    @Command(name = "enable", description = "Enable an addon and, first, every dependency it lacks.")
    static final class Enable implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ADDON", description = "[registry/]name[@version], or a local plugin directory or .tgz.")
        String addon;
        @Mixin ParamOptions params;
        @Option(names = "--dry-run", description = "Print the install order and change nothing.") boolean dryRun;
        @Option(names = "--force", description = "With a local path: replace a stored package of the same version.")
        boolean force;

        @Override
        public Integer call() {
            String ref = addon;
            Path local = Path.of(addon);
            if (Files.exists(local)) {
                ref = uploadLocal(client, local, force, dryRun);
            }
            printChange(client, client.client().post("/api/v1/addons", new AddonRequest(ref, params.params(), dryRun),
                    AddonChange.class));
            return 0;
        }
    }

    /** A local path is packaged (if a directory) and stored first, unless the store has the same bytes already. */
    private static String uploadLocal(ClientOptions client, Path local, boolean force, boolean dryRun) {
        byte[] tgz = PackageFiles.packageOf(local);
        PackageMetadata m = PluginCommand.metadataOf(tgz);
        String sha = io.drover.core.Hashing.sha256(tgz);
        boolean stored;
        try {
            stored = sha.equals(client.client().get("/api/v1/packages/" + m.name() + "/" + m.version(), PackageInfo.class).sha256());
        } catch (CliException notStored) {
            stored = false;
        }
        if (!stored) {
            if (dryRun) {
                throw new CliException("--dry-run with a local path needs the package stored first: drover plugin upload "
                        + local);
            }
            client.client().postRaw("/api/v1/packages" + (force ? "?force=true" : ""), "application/gzip", tgz, PackageInfo.class);
            client.out().printf("stored %s %s from %s%n", m.name(), m.version(), local);
        }
        return "store/" + m.name() + "@" + m.version();
    }

    @Command(name = "upgrade", description = "Upgrade an enabled addon (or change its parameters); stored ones are kept.")
    static final class Upgrade implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ADDON", description = "[registry/]name[@version]; without a version, the newest release.")
        String addon;
        @Mixin ParamOptions params;
        @Option(names = "--dry-run", description = "Print what would change and change nothing.") boolean dryRun;

        @Override
        public Integer call() {
            String name = addon.contains("/") ? addon.substring(addon.indexOf('/') + 1) : addon;
            name = name.contains("@") ? name.substring(0, name.indexOf('@')) : name;
            printChange(client, client.client().post("/api/v1/addons/" + name + "/upgrade",
                    new AddonRequest(addon, params.params(), dryRun), AddonChange.class));
            return 0;
        }
    }

    @Command(name = "disable", description = "Disable an addon and delete its stored parameters.")
    static final class Disable implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "NAME") String name;
        @Option(names = "--force", description = "Disable even though other addons require it.") boolean force;

        @Override
        public Integer call() {
            client.client().delete("/api/v1/addons/" + name + (force ? "?force=true" : ""));
            client.out().println("addon " + name + " disabled; its parameters are deleted");
            return 0;
        }
    }

    @Command(name = "status", description = "An addon's version, registry, dependencies and parameters (secrets masked).")
    static final class Status implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "NAME") String name;

        @Override
        public Integer call() {
            AddonInfo s = client.client().get("/api/v1/addons/" + name, AddonInfo.class);
            if (client.output().format() != Output.Format.table) {
                client.output().printObject(s);
                return 0;
            }
            var out = client.out();
            out.printf("addon:     %s%nstatus:    %s%n", s.name(), Output.text(s.status()));
            if (s.installedVersion() != null) {
                out.printf("version:   %s%nregistry:  %s%nenabled:   %s%n", s.installedVersion(),
                        s.registry() == null ? "" : s.registry(), s.enabledAt() == null ? "" : Output.text(s.enabledAt()));
            }
            if (!orNone(s.availableVersions()).isEmpty()) {
                out.printf("available: %s%n", String.join(", ", s.availableVersions()));
            }
            if (!orNone(s.dependencies()).isEmpty()) {
                out.println("dependencies:");
                for (AddonInfo.DependencyState d : s.dependencies()) {
                    out.printf("  %s %s %s%s%n", d.satisfied() ? "✔" : "✘", d.name(),
                            d.constraint() == null || d.constraint().isEmpty() ? "*" : d.constraint(),
                            d.installedVersion() != null ? " (installed " + d.installedVersion() + ")" : " (not installed)");
                }
            }
            if (s.params() != null && !s.params().isEmpty()) {
                out.println("params:");
                s.params().forEach((key, value) -> out.printf("  %s: %s%n", key, Output.text(value)));
            }
            return 0;
        }
    }

    private static void printChange(ClientOptions client, AddonChange change) {
        if (client.output().format() != Output.Format.table) {
            client.output().printObject(change);
            return;
        }
        var out = client.out();
        boolean dry = change.dryRun();
        out.printf("%s %s %s%n", dry ? "plan for" : "enabled", change.addon(), change.version());
        List<NumberedStep> rows = new ArrayList<>();
        for (AddonChange.Step step : orNone(change.steps())) {
            rows.add(new NumberedStep(rows.size() + 1, step));
        }
        out.print(Output.table(rows, STEPS));
        (change.alreadyInstalled() == null ? Map.<String, String>of() : change.alreadyInstalled()).forEach((addon, version) ->
                out.printf("kept %s %s (installed, satisfies its constraint)%n", addon, version));
        if (dry) {
            out.println("dry run: nothing changed");
        } else if (change.notes() != null) {
            out.println();
            out.println(change.notes().strip());
        }
    }

    private static <T> List<T> orNone(List<T> list) {
        return list == null ? List.of() : list;
    }
}
