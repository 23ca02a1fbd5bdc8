package io.drover.core.packages;

import io.drover.core.archive.ArchiveException;
import io.drover.core.archive.EntryPath;
import io.drover.model.packages.PackageMetadata;
import io.drover.model.packages.PackageMetadata.ConfigTemplate;
import io.drover.model.packages.PackageMetadata.Dependency;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/** Checks a package's metadata against docs/operations.md ("Plugin packages, registries and addons") and the files the package holds; collects every problem. */
public final class MetadataValidator {
    public static final Set<String> CATEGORIES = Set.of("official", "external", "scripts");
    public static final Set<String> OS = Set.of("linux", "windows", "aix");
    public static final Set<String> CPU_ARCH = Set.of("x86_64", "x86", "aarch64", "powerpc");
    public static final Set<String> CONTROL = Set.of("start", "stop", "restart", "reload", "version", "health");
    public static final Set<String> FORMATS = Set.of("yaml", "json", "toml", "ini", "conf", "text", "xml", "properties");
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_.-]{0,63}");

    private MetadataValidator() {
    }

    /** Throws a {@link PackageException} listing every problem; {@code files} are the package's regular files. */
    public static void validate(PackageMetadata m, Set<String> files) {
        List<String> problems = new ArrayList<>();
        if (m.name() == null || m.name().isBlank()) {
            problems.add("name is required");
        } else if (!NAME.matcher(m.name()).matches()) {
            problems.add("name '" + m.name() + "' must be lower-case letters, digits, '.', '_' or '-' (at most 64)");
        }
        if (m.version() == null || m.version().isBlank()) {
            problems.add("version is required");
        } else if (!Version.isComplete(m.version())) {
            problems.add("version '" + m.version() + "' is not a semantic version MAJOR.MINOR.PATCH");
        }
        if (m.category() == null) {
            problems.add("category is required: one of " + sorted(CATEGORIES));
        } else if (!CATEGORIES.contains(m.category())) {
            problems.add("category '" + m.category() + "' is not one of " + sorted(CATEGORIES));
        }
        if (m.os().isEmpty()) {
            problems.add("os is required: one or more of " + sorted(OS));
        }
        m.os().stream().filter(o -> !OS.contains(o)).forEach(o -> problems.add("os '" + o + "' is not one of " + sorted(OS)));
        if (m.cpuArch().isEmpty()) {
            problems.add("cpu_arch is required: one or more of " + sorted(CPU_ARCH));
        }
        m.cpuArch().stream().filter(a -> !CPU_ARCH.contains(a))
                .forEach(a -> problems.add("cpu_arch '" + a + "' is not one of " + sorted(CPU_ARCH)));
        m.control().keySet().stream().filter(k -> !CONTROL.contains(k)).sorted()
                .forEach(k -> problems.add("control." + k + " is not a control command; known: " + sorted(CONTROL)));
        m.control().forEach((k, v) -> {
            if (v == null || v.isBlank()) {
                problems.add("control." + k + " is empty");
            }
        });
        if (("official".equals(m.category()) || "external".equals(m.category()))
                && (!m.control().containsKey("start") || !m.control().containsKey("stop"))) {
            problems.add("control.start and control.stop are required for " + m.category() + " plugins");
        }
        if (m.portRange() != null) {
            try {
                PortRange.parse(m.portRange());
            } catch (PackageException e) {
                problems.add(e.getMessage());
            }
        }
        checkDependencies(m, problems);
        checkTemplates(m, files, problems);
        try {
            ParamsSchema.of(m.parameters());
        } catch (PackageException e) {
            problems.addAll(e.problems());
        }
        if (!problems.isEmpty()) {
            throw new PackageException(problems);
        }
    }

    private static void checkDependencies(PackageMetadata m, List<String> problems) {
        Set<String> seen = new HashSet<>();
        for (Dependency d : m.dependencies()) {
            if (d.name() == null || d.name().isBlank()) {
                problems.add("dependencies: an entry has no name");
                continue;
            }
            if (d.name().equals(m.name())) {
                problems.add("dependencies: " + d.name() + " depends on itself");
            }
            if (!seen.add(d.name())) {
                problems.add("dependencies: " + d.name() + " is listed twice");
            }
            try {
                VersionConstraint.parse(d.version());
            } catch (PackageException e) {
                problems.add("dependencies." + d.name() + ": " + e.getMessage());
            }
        }
        m.system().forEach((k, v) -> {
            if (!k.equals("drover")) {
                problems.add("system." + k + " is unknown; only system.drover (a constraint on the server version) is");
            } else {
                try {
                    VersionConstraint.parse(v);
                } catch (PackageException e) {
                    problems.add("system.drover: " + e.getMessage());
                }
            }
        });
    }

    private static void checkTemplates(PackageMetadata m, Set<String> files, List<String> problems) {
        Set<String> names = new HashSet<>();
        int mains = 0;
        for (int i = 0; i < m.configTemplates().size(); i++) {
            ConfigTemplate t = m.configTemplates().get(i);
            String at = "config_templates[" + i + "]";
            if (t.name() == null || t.name().isBlank()) {
                problems.add(at + ".name is required");
            } else if (!names.add(t.name())) {
                problems.add(at + ".name '" + t.name() + "' is used twice");
            }
            if (t.source() == null || t.source().isBlank()) {
                problems.add(at + ".source is required: the template file inside the package");
            } else {
                String source = safe(t.source(), at + ".source", problems);
                if (source != null && !files.contains(source)) {
                    problems.add(at + ".source '" + t.source() + "' is not in the package");
                }
            }
            if (t.path() == null) {
                problems.add(at + ".path is required: where the rendered file goes, relative to the plugin directory");
            } else if (!t.path().isEmpty()) {
                safe(t.path(), at + ".path", problems);
            }
            if (t.format() != null && !FORMATS.contains(t.format())) {
                problems.add(at + ".format '" + t.format() + "' is not one of " + sorted(FORMATS));
            }
            if (Boolean.TRUE.equals(t.isMain())) {
                mains++;
            }
        }
        if (mains > 1) {
            problems.add("config_templates: " + mains + " templates are is_main; at most one may be");
        }
    }

    private static String safe(String path, String at, List<String> problems) {
        try {
            return EntryPath.check(path);
        } catch (ArchiveException e) {
            problems.add(at + ": " + e.getMessage().replace("entry", "path"));
            return null;
        }
    }

    private static List<String> sorted(Set<String> values) {
        return values.stream().sorted().toList();
    }
}
