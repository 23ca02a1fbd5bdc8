package io.drover.agent.plans;

import io.drover.agent.disk.DurableFiles;
import io.drover.core.Hashing;
import io.drover.core.plans.ExecutionPlan;
import io.drover.core.plans.ExecutionResult;
import io.drover.core.plans.LogMessage;
import io.drover.core.plans.PlanErrorCode;
import io.drover.core.plans.PlanException;
import io.drover.core.plans.PlanFile;
import io.drover.core.plans.PlanRestarts;
import io.drover.core.plans.PlanScript;
import io.drover.core.plans.PlanValidator;
import io.drover.core.plans.SimpleBody;
import io.drover.model.plans.PlanJson;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one validated plan and answers its result, never an exception: the Body runs in the host's python3 through
 * the bootstrap shipped with the agent, which calls back over a pipe for each script call and {@code api} call;
 * scripts run here, in Java, so timeouts and process groups stay under the agent's control. The working directory
 * is removed after the run.
 */
public final class PlanRunner {
    private static final Logger log = LoggerFactory.getLogger(PlanRunner.class);
    public static final Duration DEFAULT_TIMEOUT = Duration.ofHours(1);
    private static final int MAX_STDERR = 64 * 1024;
    private static final ScheduledExecutorService WATCHDOG = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("plan-watchdog").daemon().factory());

    /** The result, and whether the plan asked for a reboot after it ({@code api.reboot}). */
    public record Outcome(ExecutionResult result, boolean reboot) {
    }

    private final Path root;
    private final Path workRoot;
    private final Path bootstrap;
    private final String agentVersion;
    private final Executors executors;
    private final FileFetcher fetcher;
    private final StateStore states;
    private final Clock clock;
    private final Duration defaultTimeout;
    private final String python;

    PlanRunner(PlanSetup setup, Executors executors) {
        this.root = setup.root();
        this.workRoot = setup.stateDir().resolve("plans/work");
        this.bootstrap = setup.bootstrap();
        this.agentVersion = setup.agentVersion();
        this.executors = executors;
        this.fetcher = new FileFetcher(setup.stateDir().resolve("plans/cache"), setup.fileserver());
        this.states = new StateStore(setup.stateDir().resolve("plan-state"));
        this.clock = setup.clock();
        this.defaultTimeout = setup.defaultTimeout();
        this.python = setup.python();
    }

    public Outcome run(ExecutionPlan plan, PlanHooks hooks) {
        Path workDir = workRoot.resolve(Hashing.sha256(String.valueOf(plan.id())).substring(0, 24));
        PlanContext context = new PlanContext(plan, workDir, clock, plan.timeout() == null ? defaultTimeout : plan.timeout());
        Run run = new Run(context, hooks);
        ScheduledFuture<?> watchdog = WATCHDOG.schedule(context::expire,
                Math.max(1, context.limit(null).toMillis()), TimeUnit.MILLISECONDS);
        try {
            DurableFiles.deleteTree(workDir);
            Object value = run.body();
            int exitCode = run.exitCode;
            ExecutionResult result = exitCode != 0
                    ? ExecutionResult.failure(newId(), plan.id(), new PlanException(PlanErrorCode.USER_BASE + exitCode,
                    "The plan set exit code " + exitCode, value), clock.instant())
                    : ExecutionResult.success(newId(), plan.id(), value, clock.instant());
            return new Outcome(result, run.reboot);
        } catch (PlanException e) {
            PlanException error = context.timedOut() ? timeout(context) : e;
            if (run.exitCode != 0 && error.code() == PlanErrorCode.GENERIC) {
                error = new PlanException(PlanErrorCode.USER_BASE + run.exitCode, error.getMessage(), error.additionalInfo());
            }
            return new Outcome(ExecutionResult.failure(newId(), plan.id(), error, clock.instant()), run.reboot);
        } catch (IOException e) {
            return new Outcome(ExecutionResult.failure(newId(), plan.id(), new PlanException(PlanErrorCode.GENERIC,
                    "The plan could not run: " + e.getMessage()), clock.instant()), false);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            context.expire();
            return new Outcome(ExecutionResult.failure(newId(), plan.id(), new PlanException(PlanErrorCode.GENERIC,
                    "The agent stopped while the plan ran"), clock.instant()), false);
        } finally {
            watchdog.cancel(false);
            context.expire();
            try {
                DurableFiles.deleteTree(workDir);
            } catch (IOException e) {
                log.warn("cannot remove the working directory {} of plan {}", workDir, plan.id(), e);
            }
        }
    }

    private static PlanException timeout(PlanContext context) {
        return new PlanException(PlanErrorCode.TIMEOUT, "The plan timed out (its limit ends at " + context.deadline()
                + "); its processes were killed");
    }

    public static String newId() {
        return UUID.randomUUID().toString().replace("-", "");
    }

    /** One run's state: the Body's process, loaded scripts, the api's flags. */
    private final class Run {
        private final PlanContext context;
        private final PlanHooks hooks;
        private final PlanWorkspace workspace;
        private final Map<String, LoadedScript> loaded = new HashMap<>();
        private final Map<String, PlanFile> added = new LinkedHashMap<>();
        private int exitCode;
        private boolean reboot;
        private int maxReboots = PlanRestarts.DEFAULT_REBOOTS;

        Run(PlanContext context, PlanHooks hooks) {
            this.context = context;
            this.hooks = hooks;
            this.workspace = new PlanWorkspace(context, fetcher, added);
        }

        Object body() throws IOException, InterruptedException {
            Optional<SimpleBody.Statement> simple = SimpleBody.parse(context.plan().body());
            if (simple.isPresent() && runsHere(simple.get().value())) {
                Object value = evaluate(simple.get().value());
                return simple.get().returns() ? value : null;
            }
            if (python == null) {
                throw new PlanException(PlanErrorCode.UNSUPPORTED_PLATFORM, "python3 is not installed on this host; "
                        + "the Body of an execution plan runs with the host's python3");
            }
            Files.createDirectories(context.workDir());
            Path stderr = context.workDir().resolve("body.stderr");
            Process process = new ProcessBuilder(ProcessGroups.grouped(List.of(python, "-u", bootstrap.toString())))
                    .directory(context.workDir().toFile()).redirectError(stderr.toFile()).start();
            context.track(process);
            io.drover.agent.jobs.JobProcesses.started(process);
            try {
                LineChannel channel = new LineChannel(process.getInputStream(), process.getOutputStream());
                Map<String, Object> start = new LinkedHashMap<>();
                start.put("body", context.plan().body());
                start.put("args", context.plan().parameters());
                start.put("scripts", new ArrayList<>(context.plan().scripts().keySet()));
                channel.write(PlanJson.write(start));
                String line;
                while ((line = channel.read()) != null) {
                    Map<?, ?> request = parse(line);
                    String op = String.valueOf(request.get("op"));
                    if (op.equals("result")) {
                        return result(request);
                    }
                    channel.write(PlanJson.write(answer(op, request)));
                }
                if (context.timedOut()) {
                    throw timeout(context);
                }
                process.waitFor(5, TimeUnit.SECONDS);
                throw new PlanException(PlanErrorCode.GENERIC, "python3 ended without a result"
                        + (process.isAlive() ? "" : " (exit " + process.exitValue() + ")") + tail(stderr));
            } catch (IOException e) {
                if (context.timedOut()) {
                    throw timeout(context);
                }
                throw new PlanException(PlanErrorCode.GENERIC, "The Body's python3 failed: " + e.getMessage() + tail(stderr));
            } finally {
                ProcessGroups.kill(process);
                context.untrack(process);
                io.drover.agent.jobs.JobProcesses.ended(process);
            }
        }

        /**
         * Whether a simple Body can run without python3: every script it calls exists, and a field is read only from
         * a script whose answer always has it (a process's exitCode, stdout and stderr; not a SaltStack function's or a
         * Python function's return value).
         */
        private boolean runsHere(SimpleBody.Value value) {
            if (!(value instanceof SimpleBody.Call call)) {
                return true;
            }
            PlanScript script = context.plan().scripts().get(call.script());
            boolean anyValue = script != null && (script.type().equals("SaltStack")
                    || script.type().equals("Python") && call.function() != null);
            if (script == null || call.field() != null && anyValue) {
                return false;
            }
            return call.positional().stream().allMatch(this::runsHere) && call.keywords().values().stream().allMatch(this::runsHere);
        }

        private Object evaluate(SimpleBody.Value value) throws InterruptedException {
            return switch (value) {
                case SimpleBody.Literal literal -> literal.value();
                case SimpleBody.Parameter parameter -> {
                    if (!context.plan().parameters().containsKey(parameter.name())) {
                        throw new PlanException(PlanErrorCode.MISSING_PARAMETER, "The execution plan has no parameter '"
                                + parameter.name() + "'");
                    }
                    yield context.plan().parameters().get(parameter.name());
                }
                case SimpleBody.Call call -> {
                    List<Object> args = new ArrayList<>();
                    for (SimpleBody.Value arg : call.positional()) {
                        args.add(evaluate(arg));
                    }
                    Map<String, Object> kwargs = new LinkedHashMap<>();
                    for (Map.Entry<String, SimpleBody.Value> kw : call.keywords().entrySet()) {
                        kwargs.put(kw.getKey(), evaluate(kw.getValue()));
                    }
                    Object answer = call(call.script(), call.function(), args, kwargs);
                    yield call.field() == null ? answer : ((Map<?, ?>) answer).get(call.field());
                }
            };
        }

        private Object result(Map<?, ?> message) {
            int code = message.get("code") instanceof Number n ? n.intValue() : PlanErrorCode.GENERIC;
            if (code == PlanErrorCode.OK) {
                return message.get("value");
            }
            throw new PlanException(code, String.valueOf(message.get("message")), message.get("info"));
        }

        private Map<String, Object> answer(String op, Map<?, ?> request) throws InterruptedException {
            Map<String, Object> reply = new LinkedHashMap<>();
            try {
                reply.put("value", switch (op) {
                    case "call" -> call(request);
                    case "api" -> api(String.valueOf(request.get("name")), request.get("args") instanceof List<?> l ? l : List.of());
                    default -> throw new PlanException(PlanErrorCode.GENERIC, "Unknown request " + op);
                });
            } catch (PlanException e) {
                if (context.timedOut()) {
                    e = timeout(context);
                }
                Map<String, Object> error = new LinkedHashMap<>();
                error.put("code", e.code());
                error.put("message", e.getMessage());
                error.put("info", e.additionalInfo());
                reply.put("error", error);
            }
            return reply;
        }

        private Object call(Map<?, ?> request) throws InterruptedException {
            List<Object> args = request.get("args") instanceof List<?> l ? new ArrayList<>(l) : new ArrayList<>();
            Map<String, Object> kwargs = new LinkedHashMap<>();
            if (request.get("kwargs") instanceof Map<?, ?> m) {
                m.forEach((k, v) -> kwargs.put(String.valueOf(k), v));
            }
            Object function = request.get("function");
            return call(String.valueOf(request.get("script")), function == null ? null : String.valueOf(function), args, kwargs);
        }

        private Object call(String name, String function, List<Object> args, Map<String, Object> kwargs) throws InterruptedException {
            PlanScript script = context.plan().scripts().get(name);
            if (script == null) {
                throw new PlanException(PlanErrorCode.GENERIC, "The plan has no script " + name);
            }
            ScriptExecutor executor = executors.get(script.type());
            LoadedScript ready = loaded.get(name);
            if (ready == null) {
                ready = workspace.load(script);
                loaded.put(name, ready);
            }
            return executor.run(context, ready, function, args, kwargs);
        }

        private Object api(String name, List<?> args) throws InterruptedException {
            return switch (name) {
                case "reboot" -> {
                    reboot = true;
                    yield null;
                }
                case "expectReboots" -> {
                    maxReboots = Math.max(0, Math.min(1000, integer(args, 0, "count")));
                    yield null;
                }
                case "waitReboot" -> {
                    hooks.restartable(maxReboots);
                    int seconds = args.isEmpty() ? 0 : integer(args, 0, "timeout");
                    Duration wait = context.limit(seconds > 0 ? Duration.ofSeconds(seconds) : null);
                    Thread.sleep(wait.toMillis());
                    hooks.rebootWaitOver();
                    yield null;
                }
                case "setState" -> {
                    states.set(service(), key(args), args.size() > 1 ? args.get(1) : null);
                    yield null;
                }
                case "getState" -> states.get(service(), key(args));
                case "removeState" -> {
                    states.remove(service(), key(args));
                    yield null;
                }
                case "putFile" -> {
                    Path target = target(text(args, 1, "path"));
                    workspace.put(text(args, 0, "file_id"), target);
                    yield target.toString();
                }
                case "addFile" -> {
                    String id = "added-" + (added.size() + 1);
                    added.put(id, PlanValidator.file(id, args.isEmpty() ? null : args.get(0), context.plan().converted()
                            ? "2.0.0" : context.plan().formatVersion()));
                    yield id;
                }
                case "version" -> agentVersion;
                case "setExitCode" -> {
                    int code = integer(args, 0, "code");
                    if (code < 0 || code > 899) {
                        throw new PlanException(PlanErrorCode.GENERIC, "setExitCode takes 0 to 899, not " + code);
                    }
                    exitCode = code;
                    yield null;
                }
                case "log" -> {
                    LogMessage.Level level = LogMessage.Level.valueOf(text(args, 0, "level").toUpperCase(Locale.ROOT));
                    String text = text(args, 1, "message");
                    LogMessage message = new LogMessage(newId(), context.plan().id(), level,
                            text.length() > 65536 ? text.substring(0, 65536) + "…" : text, clock.instant(), null);
                    log.info("plan {}: {} {}", context.plan().id(), level.wire(), message.body());
                    if (args.size() > 2 && Boolean.TRUE.equals(args.get(2))) {
                        hooks.log(message);
                    }
                    yield null;
                }
                default -> throw new PlanException(PlanErrorCode.GENERIC, "api." + name + " does not exist");
            };
        }

        private String service() {
            if (context.plan().service() == null) {
                throw new PlanException(PlanErrorCode.GENERIC, "The plan has no Service, so the state API is not available");
            }
            return context.plan().service();
        }

        /** putFile's target: relative to the working directory (and inside it), or absolute under the agent's root. */
        private Path target(String path) {
            if (path.indexOf('\0') >= 0) {
                throw new PlanException(PlanErrorCode.GENERIC, "putFile: the path holds a NUL character");
            }
            if (!path.startsWith("/")) {
                return workspace.inside(context.workDir().resolve(path));
            }
            Path base = root.toAbsolutePath().normalize();
            Path resolved = base.resolve(path.substring(1)).normalize();
            if (!resolved.startsWith(base) || resolved.equals(base)) {
                throw new PlanException(PlanErrorCode.GENERIC, "putFile: " + path + " leaves the agent's root");
            }
            return resolved;
        }
    }

    private static String key(List<?> args) {
        String key = text(args, 0, "key");
        if (key.length() > 256) {
            throw new PlanException(PlanErrorCode.GENERIC, "A state key is at most 256 characters");
        }
        return key;
    }

    private static String text(List<?> args, int index, String name) {
        if (args.size() <= index || !(args.get(index) instanceof String s)) {
            throw new PlanException(PlanErrorCode.GENERIC, "The argument " + name + " must be a string");
        }
        return s;
    }

    private static int integer(List<?> args, int index, String name) {
        if (args.size() <= index || !(args.get(index) instanceof Number n)) {
            throw new PlanException(PlanErrorCode.GENERIC, "The argument " + name + " must be a number");
        }
        return n.intValue();
    }

    private static Map<?, ?> parse(String line) {
        try {
            if (PlanJson.read(line) instanceof Map<?, ?> map) {
                return map;
            }
        } catch (IOException e) {
            // below
        }
        throw new PlanException(PlanErrorCode.GENERIC, "The Body's python3 sent something that is not a JSON object");
    }

    private static String tail(Path stderr) {
        try (InputStream in = Files.newInputStream(stderr)) {
            in.skipNBytes(Math.max(0, Files.size(stderr) - MAX_STDERR));
            String text = new String(in.readNBytes(MAX_STDERR), StandardCharsets.UTF_8).strip();
            return text.isEmpty() ? "" : ": " + text;
        } catch (IOException e) {
            return "";
        }
    }
}
