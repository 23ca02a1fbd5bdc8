package io.drover.agent.functions;

import io.drover.agent.plans.ProcessGroups;
import io.drover.agent.supervisor.Shell;
import io.drover.agent.supervisor.Supervisor;
import io.drover.core.Hashing;
import io.drover.core.archive.ArchiveException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import io.drover.model.agentapi.AgentCall;
import io.drover.model.agentapi.AgentCall.AgentVersion;
import io.drover.model.agentapi.AgentCall.Echo;
import io.drover.model.agentapi.AgentCall.FetchFile;
import io.drover.model.agentapi.AgentCall.FindJob;
import io.drover.model.agentapi.AgentCall.GetGrains;
import io.drover.model.agentapi.AgentCall.InstallPackage;
import io.drover.model.agentapi.AgentCall.OperateProcess;
import io.drover.model.agentapi.AgentCall.Ping;
import io.drover.model.agentapi.AgentCall.QueryPackage;
import io.drover.model.agentapi.AgentCall.RegisterProcess;
import io.drover.model.agentapi.AgentCall.RemoveFile;
import io.drover.model.agentapi.AgentCall.RemovePlugin;
import io.drover.model.agentapi.AgentCall.RunCommand;
import io.drover.model.agentapi.AgentCall.RunScript;
import io.drover.model.agentapi.AgentCall.UnregisterProcess;
import io.drover.model.agentapi.AgentCall.UsedPorts;
import io.drover.model.agentapi.AgentCall.WriteFile;
import io.drover.model.agentapi.AgentCallCodec;
import io.drover.model.agentapi.AgentResult;
import io.drover.model.agentapi.AgentResult.CommandOutput;
import io.drover.model.agentapi.AgentResult.FileRemoved;
import io.drover.model.agentapi.AgentResult.FileWritten;
import io.drover.model.agentapi.AgentResult.Grains;
import io.drover.model.agentapi.AgentResult.InstalledPackage;
import io.drover.model.agentapi.AgentResult.PackageInstalled;
import io.drover.model.agentapi.AgentResult.PluginRemoved;
import io.drover.model.agentapi.AgentResult.Pong;
import io.drover.model.agentapi.AgentResult.Ports;
import io.drover.model.agentapi.AgentResult.ProcessRegistered;
import io.drover.model.agentapi.AgentResult.ProcessState;
import io.drover.model.agentapi.AgentResult.ProcessUnregistered;
import io.drover.model.agentapi.AgentResult.RunningJob;
import io.drover.model.agentapi.AgentResult.Text;
import io.drover.model.agentapi.BadCall;
import io.drover.model.agentapi.ProcessStatus;
import io.drover.model.agentapi.UnknownFunction;
import java.util.ArrayList;
import java.util.HashMap;
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
    private final Function<String, Map<String, Object>> plans;
    private final io.drover.agent.diagnosis.ProcessorRunner operations;
    private final AgentUpgrader upgrade;
    private final JobKiller killer;
    private final PackageInstaller installer = new PackageInstaller(PackageInstaller.MAX_BYTES, PackageInstaller.MAX_ENTRIES);

    /**
     * {@code root}: the host's root (every path a job names is under it); {@code runningJobs}: a running job's
     * description by jid, or null.
     */
    public Functions(Supplier<Map<String, Object>> grains, String version, Path root, Supervisor supervisor, FileSource files,
                     Function<String, Map<String, Object>> runningJobs) {
        this(grains, version, root, supervisor, files, runningJobs, ListeningPorts::read);
    }

    /** Agents that run no execution plans (tests, the load tool) answer {@code plan.execute} with this. */
    public static Map<String, Object> noPlans(String plan) {
        throw new BadArgument("this agent does not run execution plans");
    }

    /** As above, with where {@code sys.used_ports} reads the host's listening ports from. */
    public Functions(Supplier<Map<String, Object>> grains, String version, Path root, Supervisor supervisor, FileSource files,
                     Function<String, Map<String, Object>> runningJobs, ListeningPorts.Source listeningPorts) {
        this(grains, version, root, supervisor, files, runningJobs, listeningPorts, Functions::noPlans,
                AgentUpgrader.NOT_INSTALLED);
    }

    /**
     * As above, with the agent's execution plans (a plan's JSON text in, its result document out) and its own upgrade
     * ({@code agent.upgrade}; refused unless the agent runs from an installed package).
     */
    public Functions(Supplier<Map<String, Object>> grains, String version, Path root, Supervisor supervisor, FileSource files,
                     Function<String, Map<String, Object>> runningJobs, ListeningPorts.Source listeningPorts,
                     Function<String, Map<String, Object>> plans, AgentUpgrader upgrade) {
        this(grains, version, root, supervisor, files, runningJobs, listeningPorts, plans, upgrade, NOTHING_TO_KILL);
    }

    /** Stops a running job by its jid ({@code saltutil.kill_job}). */
    @FunctionalInterface
    public interface JobKiller {
        AgentResult.JobKilled kill(String jid) throws InterruptedException;
    }

    /** For agents that keep no record of their jobs' processes: no job is ever found running. */
    public static final JobKiller NOTHING_TO_KILL = jid -> new AgentResult.JobKilled(jid, false, 0);

    /** As above, with how a running job is stopped. */
    public Functions(Supplier<Map<String, Object>> grains, String version, Path root, Supervisor supervisor, FileSource files,
                     Function<String, Map<String, Object>> runningJobs, ListeningPorts.Source listeningPorts,
                     Function<String, Map<String, Object>> plans, AgentUpgrader upgrade, JobKiller killer) {
        this.killer = killer;
        this.plans = plans;
        this.upgrade = upgrade;
        this.operations = new io.drover.agent.diagnosis.ProcessorRunner(root.toAbsolutePath().normalize().resolve("var/lib/drover-agent"));
        this.listeningPorts = listeningPorts;
        this.grains = grains;
        this.version = version;
        this.root = root.toAbsolutePath().normalize();
        this.supervisor = supervisor;
        this.files = files;
        this.runningJobs = runningJobs;
        registerHandlers();
    }

    /** Runs one call: Salt's {@code fun} and argument list, decoded by {@link AgentCallCodec} and handed to its handler. */
    public Result call(String fun, List<?> args) {
        AgentCall<?> call;
        try {
            call = AgentCallCodec.decode(fun, args);
        } catch (UnknownFunction e) {
            return new Result(e.getMessage(), 254);
        } catch (BadCall e) {
            return Result.error(fun + ": " + e.getMessage());
        }
        try {
            Reply reply = dispatch(call);
            return new Result(AgentCallCodec.encodeResult(reply.result()), reply.retcode());
        } catch (BadArgument | BadCall | ArchiveException | AgentUpgrader.Refused e) {
            return Result.error(fun + ": " + e.getMessage());
        } catch (IOException e) {
            return Result.error(fun + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Result.error(fun + ": interrupted");
        } catch (RuntimeException e) {
            return Result.error(fun + ": " + (e instanceof IllegalArgumentException ? e.getMessage() : e.toString()));
        }
    }

    /** A handler's answer: the result and the retcode Salt reports with it. */
    record Reply(AgentResult result, int retcode) {
        static Reply ok(AgentResult result) {
            return new Reply(result, 0);
        }
    }

    @FunctionalInterface
    interface Handler<C extends AgentCall<?>> {
        Reply handle(C call) throws IOException, InterruptedException;
    }

    private final Map<Class<?>, Handler<?>> handlers = new HashMap<>();

    private <C extends AgentCall<?>> void on(Class<C> type, Handler<C> handler) {
        handlers.put(type, handler);
    }

    /** The call types this agent answers; every one of {@link AgentCall}'s (a test checks). */
    java.util.Set<Class<?>> handled() {
        return java.util.Set.copyOf(handlers.keySet());
    }

    @SuppressWarnings("unchecked")
    private <C extends AgentCall<?>> Reply dispatch(C call) throws IOException, InterruptedException {
        Handler<C> handler = (Handler<C>) handlers.get(call.getClass());
        if (handler == null) {
            throw new UnknownFunction(AgentCallCodec.encode(call).fun());
        }
        return handler.handle(call);
    }

    private void registerHandlers() {
        on(Ping.class, c -> Reply.ok(new Pong()));
        on(Echo.class, c -> Reply.ok(new Text(c.text())));
        on(AgentVersion.class, c -> Reply.ok(new Text(version)));
        on(GetGrains.class, c -> {
            if (c.keys().isEmpty()) {
                return Reply.ok(new Grains(grains.get()));
            }
            Map<String, Object> picked = new LinkedHashMap<>();
            c.keys().forEach(k -> picked.put(k, grains.get().get(k)));
            return Reply.ok(new Grains(picked));
        });
        on(FindJob.class, c -> {
            Map<String, Object> job = runningJobs == null ? null : runningJobs.apply(c.jid());
            return Reply.ok(new RunningJob(job == null ? Map.of() : job));
        });
        on(AgentCall.KillJob.class, c -> Reply.ok(killer.kill(c.jid())));
        on(RunCommand.class, c -> run(List.of("/bin/sh", "-c", c.command())));
        on(RunScript.class, this::script);
        on(WriteFile.class, c -> writeFile(c.path(), c.mode(), tmp -> Files.write(tmp, c.content().getBytes(StandardCharsets.UTF_8))));
        on(FetchFile.class, c -> {
            String sha256 = sha256Argument(c.sha256());
            return writeFile(c.path(), c.mode(), tmp -> {
                Path fetched = files.fetch(c.source(), sha256);
                try {
                    verify(fetched, sha256, c.source());
                    Files.copy(fetched, tmp, StandardCopyOption.REPLACE_EXISTING);
                } finally {
                    Files.deleteIfExists(fetched);
                }
            });
        });
        on(RemoveFile.class, c -> {
            Path path = under(c.path());
            boolean existed = Files.isDirectory(path) ? deleteTree(path) : Files.deleteIfExists(path);
            return Reply.ok(new FileRemoved(c.path(), existed));
        });
        on(UsedPorts.class, c -> Reply.ok(new Ports(listeningPorts.read())));
        on(InstallPackage.class, this::installPackage);
        on(QueryPackage.class, c -> {
            Path target = under(c.targetDir());
            return Reply.ok(new InstalledPackage(c.targetDir(), Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS),
                    PackageInstaller.installedSha256(target).orElse("")));
        });
        on(AgentCall.UpgradeAgent.class, c -> Reply.ok(upgrade.start(c)));
        on(RemovePlugin.class, c -> Reply.ok(new PluginRemoved(c.targetDir(), deleteTree(under(c.targetDir())))));
        on(RegisterProcess.class, c -> {
            supervisor.register(c.spec());
            return Reply.ok(new ProcessRegistered(c.spec().name(), true));
        });
        on(UnregisterProcess.class, c -> Reply.ok(new ProcessUnregistered(c.name(), supervisor.unregister(c.name()))));
        on(OperateProcess.class, this::operate);
        // The call succeeds whenever the operation ran; whether the operation succeeded is in its outcome.
        on(AgentCall.RunOperation.class, c -> Reply.ok(operations.run(c.run())));
        on(AgentCall.RunPlan.class, c -> {
            Map<String, Object> document = plans.apply(c.plan());
            boolean failed = document.get("ErrorCode") instanceof Number code ? code.intValue() != 0
                    : Boolean.TRUE.equals(document.get("IsException")) || document.get("Result") instanceof Map<?, ?> inner
                    && Boolean.TRUE.equals(inner.get("IsException"));
            return new Reply(new AgentResult.PlanFinished(document), failed ? 1 : 0);
        });
    }

    private interface Content {
        void writeTo(Path tmp) throws IOException;
    }

    /**
     * {@code file.write}: the content is written to a temporary file beside the target, then renamed over it.
     * {@code mode} is octal digits, as a string ({@code "0644"}) or, as Salt reads YAML, a number ({@code 644});
     * without one, a file that is replaced keeps its own.
     */
    private Reply writeFile(String name, String mode, Content content) throws IOException {
        Path path = under(name);
        if (mode != null && !mode.matches("0?[0-7]{3}")) {
            throw new BadArgument("mode '" + mode + "' is not an octal mode like 0644");
        }
        if (Files.isDirectory(path)) {
            throw new BadArgument("path '" + name + "' is a directory");
        }
        Files.createDirectories(path.getParent());
        Path tmp = Files.createTempFile(path.getParent(), "." + path.getFileName() + ".", ".tmp");
        try {
            content.writeTo(tmp);
            Files.setPosixFilePermissions(tmp, mode != null ? PosixFilePermissions.fromString(rwx(Integer.parseInt(mode, 8)))
                    : Files.isRegularFile(path) ? Files.getPosixFilePermissions(path) : PosixFilePermissions.fromString("rw-r--r--"));
            Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
        return Reply.ok(new FileWritten(name, Files.size(path), md5(path)));
    }

    /** {@code cmd.script}: the script (or the server file it names) is written to a temporary file and run with sh. */
    private Reply script(RunScript c) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("/bin/sh"));
        String sha256 = c.sha256() == null ? null : sha256Argument(c.sha256());
        Path file = sha256 == null ? Files.createTempFile("drover-script-", ".sh") : files.fetch(c.source(), sha256);
        try {
            if (sha256 == null) {
                Files.writeString(file, c.source());
            } else {
                verify(file, sha256, c.source());
            }
            command.add(file.toString());
            command.addAll(c.args());
            return run(command);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private Reply installPackage(InstallPackage c) throws IOException {
        String sha256 = sha256Argument(c.sha256());
        Path target = under(c.targetDir());
        Path archive = files.fetch(c.source(), sha256);
        try {
            verify(archive, sha256, c.source());
            int count = installer.install(archive, target, sha256);
            return Reply.ok(new PackageInstalled(c.targetDir(), count, sha256));
        } finally {
            Files.deleteIfExists(archive);
        }
    }

    private Reply operate(OperateProcess c) throws IOException, InterruptedException {
        Map<String, Object> state = supervisor.operate(c.name(), c.op().name());
        ProcessState result = new ProcessState(c.name(), c.op(), ProcessStatus.valueOf(String.valueOf(state.get("status"))),
                state.get("pid") instanceof Number n ? n.longValue() : null, (String) state.get("version"),
                (Boolean) state.get("delegate"), (Boolean) state.get("healthy"));
        boolean failed = switch (c.op()) {
            case START, RESTART, RELOAD -> !result.running();
            case STOP -> result.running();
            default -> false;
        };
        return new Reply(result, failed ? 1 : 0);
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
        String actual = sha256(file);
        if (!actual.equals(sha256)) {
            throw new IOException("'" + source + "' has sha256 " + actual + ", not " + sha256);
        }
    }

    private Reply run(List<String> command) throws IOException, InterruptedException {
        Shell.Outcome outcome = Shell.run(ProcessGroups.grouped(command), root, CMD_TIMEOUT, MAX_OUTPUT);
        if (outcome.timedOut()) {
            return new Reply(new CommandOutput("timed out after " + CMD_TIMEOUT.toSeconds() + " s", Shell.TIMED_OUT),
                    Shell.TIMED_OUT);
        }
        return new Reply(new CommandOutput(outcome.text(), outcome.exit()), outcome.exit());
    }

    private static boolean deleteTree(Path dir) throws IOException {
        boolean existed = Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        io.drover.agent.disk.DurableFiles.deleteTree(dir);
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

    private static String sha256(Path file) throws IOException {
        try (var in = Files.newInputStream(file)) {
            return Hashing.sha256(in);
        }
    }

    private static String md5(Path file) throws IOException {
        try (var in = Files.newInputStream(file)) {
            return Hashing.md5(in);
        }
    }

    /** A missing or malformed argument. */
    static final class BadArgument extends RuntimeException {
        BadArgument(String message) {
            super(message);
        }
    }
}
