package io.drover.cli;

import com.fasterxml.jackson.databind.JsonNode;
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
    static final List<Column> COLUMNS = List.of(Column.of("NAME", "name"), Column.of("STATUS", "status"),
            Column.of("INSTALLED", "installed_version"), Column.of("REGISTRY", "registry"),
            new Column("AVAILABLE", n -> String.join(", ", texts(n.path("available_versions")))));
    static final List<Column> STEPS = List.of(Column.of("STEP", "n"), Column.of("ADDON", "name"),
            Column.of("VERSION", "version"), Column.of("REGISTRY", "registry"), Column.of("ACTION", "action"),
            new Column("REQUIRED BY", n -> String.join(", ", texts(n.path("required_by")))));

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
            JsonNode catalog = client.client().get("/api/v1/addons");
            client.output().print(catalog, catalog.path("addons"), COLUMNS);
            if (client.output().format() == Output.Format.table) {
                catalog.path("skipped").forEach(s -> client.out().println("warning: registry " + s.path("registry").asText()
                        + ": " + s.path("entry").asText() + " is skipped: " + s.path("reason").asText()));
                catalog.path("unreadable_registries").properties().forEach(e ->
                        client.out().println("warning: registry " + e.getKey() + " could not be read: " + e.getValue().asText()));
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
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("addon", ref);
            body.put("params", params.params());
            body.put("dry_run", dryRun);
            printChange(client, client.client().post("/api/v1/addons", body));
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
            stored = client.client().get("/api/v1/packages/" + m.name() + "/" + m.version()).path("sha256").asText().equals(sha);
        } catch (CliException notStored) {
            stored = false;
        }
        if (!stored) {
            if (dryRun) {
                throw new CliException("--dry-run with a local path needs the package stored first: drover plugin upload "
                        + local);
            }
            client.client().postRaw("/api/v1/packages" + (force ? "?force=true" : ""), "application/gzip", tgz);
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
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("addon", addon);
            body.put("params", params.params());
            body.put("dry_run", dryRun);
            printChange(client, client.client().post("/api/v1/addons/" + name + "/upgrade", body));
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
            JsonNode s = client.client().get("/api/v1/addons/" + name);
            if (client.output().format() != Output.Format.table) {
                client.output().printObject(s);
                return 0;
            }
            var out = client.out();
            out.printf("addon:     %s%nstatus:    %s%n", s.path("name").asText(), s.path("status").asText());
            if (s.hasNonNull("installed_version")) {
                out.printf("version:   %s%nregistry:  %s%nenabled:   %s%n", s.path("installed_version").asText(),
                        s.path("registry").asText(), s.path("enabled_at").asText());
            }
            if (!s.path("available_versions").isEmpty()) {
                out.printf("available: %s%n", String.join(", ", texts(s.path("available_versions"))));
            }
            if (!s.path("dependencies").isEmpty()) {
                out.println("dependencies:");
                for (JsonNode d : s.path("dependencies")) {
                    out.printf("  %s %s %s%s%n", d.path("satisfied").asBoolean() ? "✔" : "✘", d.path("name").asText(),
                            d.path("constraint").asText("*").isEmpty() ? "*" : d.path("constraint").asText("*"),
                            d.hasNonNull("installed_version") ? " (installed " + d.path("installed_version").asText() + ")"
                                    : " (not installed)");
                }
            }
            if (!s.path("params").isEmpty()) {
                out.println("params:");
                s.path("params").properties().forEach(e -> out.printf("  %s: %s%n", e.getKey(), Output.text(e.getValue())));
            }
            return 0;
        }
    }

    private static void printChange(ClientOptions client, JsonNode change) {
        if (client.output().format() != Output.Format.table) {
            client.output().printObject(change);
            return;
        }
        var out = client.out();
        boolean dry = change.path("dry_run").asBoolean();
        out.printf("%s %s %s%n", dry ? "plan for" : "enabled", change.path("addon").asText(), change.path("version").asText());
        var rows = Json.json().createArrayNode();
        int n = 1;
        for (JsonNode step : change.path("steps")) {
            rows.add(((com.fasterxml.jackson.databind.node.ObjectNode) step.deepCopy()).put("n", n++));
        }
        out.print(Output.table(rows, STEPS));
        change.path("already_installed").properties().forEach(e ->
                out.printf("kept %s %s (installed, satisfies its constraint)%n", e.getKey(), e.getValue().asText()));
        if (dry) {
            out.println("dry run: nothing changed");
        } else if (change.hasNonNull("notes")) {
            out.println();
            out.println(change.path("notes").asText().strip());
        }
    }

    private static List<String> texts(JsonNode array) {
        List<String> texts = new ArrayList<>();
        array.forEach(n -> texts.add(n.asText()));
        return texts;
    }
}
