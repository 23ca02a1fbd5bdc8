package io.drover.agent.functions;

import io.drover.agent.supervisor.ProcessSpec;
import io.drover.agent.supervisor.Shell;
import io.drover.agent.supervisor.Supervisor;
import io.drover.core.archive.ArchiveException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The functions a job may call, with Salt's names where Salt has them: {@code test.*}, {@code grains.*},
 * {@code saltutil.find_job}, {@code cmd.run}, {@code cmd.script}, and Drover's {@code file.*}, {@code plugin.*},
 * {@code sys.used_ports}, {@code proc.*}. Each returns the value and the retcode; bad arguments are an error result,
 * never an exception. Every path a job names is under the agent root ({@code /etc/x} and {@code etc/x} are both
 * {@code <root>/etc/x}); a path that leaves the root, or is the root itself, is refused.
 */
public final class Functions {
    public static final Duration CMD_TIMEOUT = Duration.ofMinutes(10);
    private static final int MAX_OUTPUT = 1 << 20;

    /** A function's answer. */
    public record Result(Object value, int retcode) {
        static Result ok(Object value) {
            return new Result(value, 0);
        }

        static Result error(String message) {
            return new Result(message, 1);
        }
    }

    private final Supplier<Map<String, Object>> grains;
    private final String version;
    private final Path root;
    private final Supervisor supervisor;
    private final FileSource files;
    private final Function<String, Map<String, Object>> runningJobs;
    private final ListeningPorts.Source listeningPorts;
    private final PackageInstaller installer = new PackageInstaller(PackageInstaller.MAX_BYTES, PackageInstaller.MAX_ENTRIES);

    /**
     * {@code root}: the host's root (every path a job names is under it); {@code runningJobs}: a running job's
     * description by jid, or null.
     */
    public Functions(Supplier<Map<String, Object>> grains, String version, Path root, Supervisor supervisor, FileSource files,
                     Function<String, Map<String, Object>> runningJobs) {
        this(grains, version, root, supervisor, files, runningJobs, ListeningPorts::read);
    }

    /** As above, with where {@code sys.used_ports} reads the host's listening ports from. */
    public Functions(Supplier<Map<String, Object>> grains, String version, Path root, Supervisor supervisor, FileSource files,
                     Function<String, Map<String, Object>> runningJobs, ListeningPorts.Source listeningPorts) {
        this.listeningPorts = listeningPorts;
        this.grains = grains;
        this.version = version;
        this.root = root.toAbsolutePath().normalize();
        this.supervisor = supervisor;
        this.files = files;
        this.runningJobs = runningJobs;
    }

    public Result call(String fun, List<?> args) {
        try {
            Args a = Args.of(args == null ? List.of() : args);
            return switch (fun) {
                case "test.ping" -> Result.ok(true);
                case "test.echo" -> Result.ok(a.positional(0, "text", ""));
                case "test.version" -> Result.ok(version);
                case "grains.items" -> Result.ok(grains.get());
                case "grains.item" -> {
                    Map<String, Object> picked = new LinkedHashMap<>();
                    a.positional().forEach(k -> picked.put(String.valueOf(k), grains.get().get(String.valueOf(k))));
                    yield Result.ok(picked);
                }
                case "saltutil.find_job" -> {
                    Map<String, Object> job = runningJobs == null ? null : runningJobs.apply(a.required(0, "jid"));
                    yield Result.ok(job == null ? Map.of() : job);
                }
                case "cmd.run" -> run(List.of("/bin/sh", "-c", a.required(0, "cmd")));
                case "cmd.script" -> script(a);
                case "file.write" -> writeFile(a);
                case "file.remove" -> {
                    Path path = under(a.required(0, "path"));
                    boolean existed = Files.isDirectory(path) ? deleteTree(path) : Files.deleteIfExists(path);
                    yield Result.ok(Map.of("path", a.required(0, "path"), "removed", existed));
                }
                case "sys.used_ports" -> Result.ok(listeningPorts.read());
                case "plugin.install_package" -> installPackage(a);
                case "plugin.installed" -> {
                    String dir = a.required(0, "target_dir");
                    Path target = under(dir);
                    yield Result.ok(Map.of("target_dir", dir, "exists", Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS),
                            "sha256", PackageInstaller.installedSha256(target).orElse("")));
                }
                case "plugin.remove" -> {
                    Path dir = under(a.required(0, "target_dir"));
                    yield Result.ok(Map.of("target_dir", a.required(0, "target_dir"), "removed", deleteTree(dir)));
                }
                case "proc.register" -> register(a);
                case "proc.unregister" -> Result.ok(Map.of("name", a.required(0, "name"),
                        "unregistered", supervisor.unregister(a.required(0, "name"))));
                case "proc.operate" -> operate(a);
                default -> new Result("'" + fun + "' is not available on this agent", 254);
            };
        } catch (BadArgument | ArchiveException | IllegalArgumentException e) {
            return Result.error(fun + ": " + e.getMessage());
        } catch (IOException e) {
            return Result.error(fun + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Result.error(fun + ": interrupted");
        } catch (RuntimeException e) {
            return Result.error(fun + ": " + e);
        }
    }

    /**
     * {@code file.write(path, content[, mode])}, or {@code file.write(path, source=<server file>, sha256=<hex>[, mode])}:
     * written to a temporary file beside the target, then renamed over it. {@code mode} is octal digits, as a string
     * ({@code "0644"}) or, as Salt reads YAML, a number ({@code 644}).
     */
    private Result writeFile(Args a) throws IOException {
        String name = a.required(0, "path");
        Path path = under(name);
        String source = a.positional(-1, "source", null);
        String content = a.positional(1, "content", null);
        if ((source == null) == (content == null)) {
            throw new BadArgument("give either 'content' or 'source' (with 'sha256')");
        }
        String mode = a.positional(2, "mode", null);
        if (mode != null && !mode.matches("0?[0-7]{3}")) {
            throw new BadArgument("mode '" + mode + "' is not an octal mode like 0644");
        }
        if (Files.isDirectory(path)) {
            throw new BadArgument("path '" + name + "' is a directory");
        }
        Files.createDirectories(path.getParent());
        Path tmp = Files.createTempFile(path.getParent(), "." + path.getFileName() + ".", ".tmp");
        try {
            if (source != null) {
                String sha256 = sha256Argument(a.required(-1, "sha256"));
                Path fetched = files.fetch(source, sha256);
                try {
                    verify(fetched, sha256, source);
                    Files.copy(fetched, tmp, StandardCopyOption.REPLACE_EXISTING);
                } finally {
                    Files.deleteIfExists(fetched);
                }
            } else {
                Files.write(tmp, content.getBytes(StandardCharsets.UTF_8));
            }
            // without a mode, a file that is replaced keeps its own
            Files.setPosixFilePermissions(tmp, mode != null ? PosixFilePermissions.fromString(rwx(Integer.parseInt(mode, 8)))
                    : Files.isRegularFile(path) ? Files.getPosixFilePermissions(path) : PosixFilePermissions.fromString("rw-r--r--"));
            Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
        return Result.ok(Map.of("path", name, "bytes", Files.size(path), "md5", digest(path, "MD5")));
    }

    /**
     * {@code cmd.script(source[, args])}: {@code source} is the script itself, or with {@code sha256} a server file;
     * it is written to a temporary file and run with sh in the root. {@code args} is a list, or (as in Salt) one
     * string, split on blanks here (no shell quoting).
     */
    private Result script(Args a) throws IOException, InterruptedException {
        String source = a.required(0, "source");
        String sha256 = a.positional(-1, "sha256", null);
        List<String> command = new ArrayList<>(List.of("/bin/sh"));
        Path file = sha256 == null ? Files.createTempFile("drover-script-", ".sh") : files.fetch(source, sha256Argument(sha256));
        try {
            if (sha256 == null) {
                Files.writeString(file, source);
            } else {
                verify(file, sha256Argument(sha256), source);
            }
            command.add(file.toString());
            Object args = a.raw(1, "args");
            if (args instanceof List<?> list) {
                list.forEach(x -> command.add(String.valueOf(x)));
            } else if (args != null) {
                for (String word : String.valueOf(args).strip().split("\\s+")) {
                    if (!word.isEmpty()) {
                        command.add(word);
                    }
                }
            }
            return run(command);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private Result installPackage(Args a) throws IOException {
        String source = a.required(0, "source");
        String sha256 = sha256Argument(a.required(1, "sha256"));
        String targetName = a.required(2, "target_dir");
        Path target = under(targetName);
        Path archive = files.fetch(source, sha256);
        try {
            verify(archive, sha256, source);
            int count = installer.install(archive, target, sha256);
            return Result.ok(Map.of("target_dir", targetName, "files", count, "sha256", sha256));
        } finally {
            Files.deleteIfExists(archive);
        }
    }

    private Result register(Args a) throws IOException {
        String name = a.required(0, "name");
        ProcessSpec spec = new ProcessSpec(name, a.required(-1, "setup_path"), a.required(-1, "pid_path"),
                a.positional(-1, "user", null), a.required(-1, "start_cmd"), a.positional(-1, "stop_cmd", null),
                a.positional(-1, "restart_cmd", null), a.positional(-1, "reload_cmd", null),
                a.positional(-1, "version_cmd", null), a.positional(-1, "health_cmd", null),
                Boolean.parseBoolean(a.positional(-1, "delegate", "false")));
        supervisor.register(spec);
        return Result.ok(Map.of("name", name, "registered", true));
    }

    private Result operate(Args a) throws IOException, InterruptedException {
        String name = a.required(0, "name");
        String op = a.required(1, "op").toUpperCase(Locale.ROOT);
        if (!Supervisor.OPS.contains(op)) {
            throw new BadArgument("op '" + op + "' is not one of " + String.join(", ", Supervisor.OPS));
        }
        Map<String, Object> state = new LinkedHashMap<>(supervisor.operate(name, op));
        state.put("name", name);
        state.put("op", op);
        boolean failed = List.of("START", "RESTART", "RELOAD").contains(op) && !"RUNNING".equals(state.get("status"))
                || op.equals("STOP") && "RUNNING".equals(state.get("status"));
        return new Result(state, failed ? 1 : 0);
    }

    /** A path a job names, under the agent root; {@code ..} that leaves the root, and the root itself, are refused. */
    private Path under(String path) {
        Path resolved = root.resolve(path.replaceFirst("^/+", "")).normalize();
        if (!resolved.startsWith(root)) {
            throw new BadArgument("path '" + path + "' leaves the agent root");
        }
        if (resolved.equals(root)) {
            throw new BadArgument("path '" + path + "' is the agent root itself");
        }
        return resolved;
    }

    private static String sha256Argument(String sha256) {
        String hex = sha256.toLowerCase(Locale.ROOT);
        if (!hex.matches("[0-9a-f]{64}")) {
            throw new BadArgument("sha256 '" + sha256 + "' is not 64 hex digits");
        }
        return hex;
    }

    /** The file source verifies too; this check does not depend on it. */
    private static void verify(Path file, String sha256, String source) throws IOException {
        String actual = digest(file, "SHA-256");
        if (!actual.equals(sha256)) {
            throw new IOException("'" + source + "' has sha256 " + actual + ", not " + sha256);
        }
    }

    private Result run(List<String> command) throws IOException, InterruptedException {
        Shell.Outcome outcome = Shell.run(command, root, CMD_TIMEOUT, MAX_OUTPUT);
        if (outcome.timedOut()) {
            return new Result("timed out after " + CMD_TIMEOUT.toSeconds() + " s", Shell.TIMED_OUT);
        }
        return new Result(outcome.text(), outcome.exit());
    }

    private static boolean deleteTree(Path dir) throws IOException {
        boolean existed = Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        PackageInstaller.deleteTree(dir);
        return existed;
    }

    private static String rwx(int mode) {
        String bits = "rwxrwxrwx";
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < 9; i++) {
            out.append((mode & (1 << (8 - i))) != 0 ? bits.charAt(i) : '-');
        }
        return out.toString();
    }

    static String digest(Path file, String algorithm) throws IOException {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance(algorithm);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        try (var in = Files.newInputStream(file)) {
            byte[] buffer = new byte[1 << 16];
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                digest.update(buffer, 0, n);
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    /** A missing or malformed argument. */
    static final class BadArgument extends RuntimeException {
        BadArgument(String message) {
            super(message);
        }
    }

    /** Salt-style arguments: positional values, then keyword arguments in a trailing map marked {@code __kwarg__}. */
    record Args(List<Object> positional, Map<String, Object> keywords) {
        static Args of(List<?> args) {
            List<Object> positional = new java.util.ArrayList<>();
            Map<String, Object> keywords = new LinkedHashMap<>();
            for (Object a : args) {
                if (a instanceof Map<?, ?> m && Boolean.TRUE.equals(m.get("__kwarg__"))) {
                    m.forEach((k, v) -> {
                        if (!"__kwarg__".equals(k)) {
                            keywords.put(String.valueOf(k), v);
                        }
                    });
                } else {
                    positional.add(a);
                }
            }
            return new Args(positional, keywords);
        }

        /** The keyword {@code name}, else positional {@code index} (−1: keyword only), else the default. */
        String positional(int index, String name, String fallback) {
            Object value = raw(index, name);
            if (value instanceof Map<?, ?> || value instanceof List<?>) {
                throw new BadArgument("'" + name + "' must be a single value, not " + (value instanceof Map<?, ?> ? "a map" : "a list"));
            }
            return value == null ? fallback : value instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(value);
        }

        Object raw(int index, String name) {
            return keywords.containsKey(name) ? keywords.get(name)
                    : index >= 0 && index < positional.size() ? positional.get(index) : null;
        }

        String required(int index, String name) {
            String value = positional(index, name, null);
            if (value == null || value.isBlank()) {
                throw new BadArgument("'" + name + "' is required");
            }
            return value;
        }
    }
}
