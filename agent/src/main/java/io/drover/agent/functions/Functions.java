package io.drover.agent.functions;

import io.drover.agent.supervisor.ProcessSpec;
import io.drover.agent.supervisor.Supervisor;
import io.drover.core.archive.ArchiveException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The functions a job may call, with Salt's names where Salt has them: {@code test.*}, {@code grains.*},
 * {@code saltutil.find_job}, {@code cmd.run}, and Drover's {@code file.*}, {@code plugin.*}, {@code sys.used_ports},
 * {@code proc.*}. Each returns the value and the retcode; bad arguments are an error result, never an exception.
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
    private final PackageInstaller installer = new PackageInstaller(PackageInstaller.MAX_BYTES, PackageInstaller.MAX_ENTRIES);

    /**
     * {@code root}: the host's root (every path a job names is under it); {@code runningJobs}: a running job's
     * description by jid, or null.
     */
    public Functions(Supplier<Map<String, Object>> grains, String version, Path root, Supervisor supervisor, FileSource files,
                     Function<String, Map<String, Object>> runningJobs) {
        this.grains = grains;
        this.version = version;
        this.root = root.toAbsolutePath().normalize();
        this.supervisor = supervisor;
        this.files = files;
        this.runningJobs = runningJobs;
    }

    public Result call(String fun, List<?> args) {
        Args a = Args.of(args);
        try {
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
                    Map<String, Object> job = runningJobs.apply(a.required(0, "jid"));
                    yield Result.ok(job == null ? Map.of() : job);
                }
                case "cmd.run" -> run(a.required(0, "cmd"));
                case "file.write" -> writeFile(a);
                case "file.remove" -> {
                    Path path = under(a.required(0, "path"));
                    boolean existed = Files.isDirectory(path) ? deleteTree(path) : Files.deleteIfExists(path);
                    yield Result.ok(Map.of("path", a.required(0, "path"), "removed", existed));
                }
                case "sys.used_ports" -> Result.ok(ListeningPorts.read());
                case "plugin.install_package" -> installPackage(a);
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
        }
    }

    private Result writeFile(Args a) throws IOException {
        String name = a.required(0, "path");
        Path path = under(name);
        byte[] content = a.positional(1, "content", "").getBytes(StandardCharsets.UTF_8);
        Files.createDirectories(path.getParent());
        Path tmp = path.resolveSibling("." + path.getFileName() + ".tmp");
        Files.write(tmp, content);
        String mode = a.positional(2, "mode", null);
        if (mode != null) {
            if (!mode.matches("0?[0-7]{3}")) {
                throw new BadArgument("mode '" + mode + "' is not an octal mode like 0644");
            }
            Files.setPosixFilePermissions(tmp, java.nio.file.attribute.PosixFilePermissions.fromString(rwx(Integer.parseInt(mode, 8))));
        }
        Files.move(tmp, path, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        return Result.ok(Map.of("path", name, "bytes", content.length, "md5", md5(content)));
    }

    private Result installPackage(Args a) throws IOException {
        String source = a.required(0, "source");
        String sha256 = a.required(1, "sha256");
        if (!sha256.matches("[0-9a-f]{64}")) {
            throw new BadArgument("sha256 '" + sha256 + "' is not 64 lowercase hex digits");
        }
        String targetName = a.required(2, "target_dir");
        Path target = under(targetName);
        if (target.equals(root)) {
            throw new BadArgument("target_dir may not be the root itself");
        }
        Path archive = files.fetch(source, sha256);
        try {
            int count = installer.install(archive, target);
            return Result.ok(Map.of("target_dir", targetName, "files", count, "sha256", sha256));
        } finally {
            Files.deleteIfExists(archive);
        }
    }

    private Result register(Args a) throws IOException {
        String name = a.required(-1, "name");
        if (!name.matches("[A-Za-z0-9_.-]{1,64}")) {
            throw new BadArgument("process name '" + name + "' must be 1-64 letters, digits, '.', '_' or '-'");
        }
        ProcessSpec spec = new ProcessSpec(name, a.required(-1, "setup_path"), a.required(-1, "pid_path"),
                a.positional(-1, "user", null), a.required(-1, "start_cmd"), a.positional(-1, "stop_cmd", null),
                a.positional(-1, "restart_cmd", null), a.positional(-1, "reload_cmd", null),
                a.positional(-1, "version_cmd", null), a.positional(-1, "health_cmd", null),
                Boolean.parseBoolean(a.positional(-1, "delegate", "false")));
        supervisor.under(spec.setupPath());
        supervisor.under(spec.pidPath());
        supervisor.register(spec);
        return Result.ok(Map.of("name", name, "registered", true));
    }

    private Result operate(Args a) throws IOException, InterruptedException {
        String name = a.required(0, "name");
        String op = a.required(1, "op").toUpperCase(java.util.Locale.ROOT);
        if (!Supervisor.OPS.contains(op)) {
            throw new BadArgument("op '" + op + "' is not one of " + String.join(", ", Supervisor.OPS));
        }
        Map<String, Object> state = new LinkedHashMap<>(supervisor.operate(name, op));
        state.put("name", name);
        state.put("op", op);
        boolean failed = (op.equals("START") || op.equals("RESTART")) && !"RUNNING".equals(state.get("status"))
                || op.equals("STOP") && "RUNNING".equals(state.get("status"))
                || !op.equals("QUERY") && "UNREGISTER".equals(state.get("status"));
        return new Result(state, failed ? 1 : 0);
    }

    /** A path a job names, under the agent root; {@code ..} that leaves the root is refused. */
    private Path under(String path) {
        Path resolved = root.resolve(path.replaceFirst("^/+", "")).normalize();
        if (!resolved.startsWith(root)) {
            throw new BadArgument("path '" + path + "' leaves the agent root");
        }
        return resolved;
    }

    private Result run(String command) {
        try {
            Process process = new ProcessBuilder("/bin/sh", "-c", command).directory(root.toFile())
                    .redirectErrorStream(true).start();
            process.getOutputStream().close();
            byte[] output = process.getInputStream().readNBytes(MAX_OUTPUT);
            if (!process.waitFor(CMD_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return new Result("timed out after " + CMD_TIMEOUT.toSeconds() + " s", 124);
            }
            String text = new String(output, StandardCharsets.UTF_8);
            return new Result(text.endsWith("\n") ? text.substring(0, text.length() - 1) : text, process.exitValue());
        } catch (IOException e) {
            return new Result("cannot run: " + e.getMessage(), 1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result("interrupted", 1);
        }
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

    static String md5(byte[] content) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("MD5").digest(content));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
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
            Object value = keywords.containsKey(name) ? keywords.get(name)
                    : index >= 0 && index < positional.size() ? positional.get(index) : null;
            return value == null ? fallback : value instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(value);
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
