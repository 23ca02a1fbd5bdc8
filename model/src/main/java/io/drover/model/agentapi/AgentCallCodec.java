package io.drover.model.agentapi;

import io.drover.model.Json;
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
import io.drover.model.agentapi.AgentCall.RunPlan;
import io.drover.model.agentapi.AgentCall.RunScript;
import io.drover.model.agentapi.AgentCall.UnregisterProcess;
import io.drover.model.agentapi.AgentCall.UsedPorts;
import io.drover.model.agentapi.AgentCall.WriteFile;
import io.drover.model.agentapi.AgentResult.CommandOutput;
import io.drover.model.agentapi.AgentResult.Grains;
import io.drover.model.agentapi.AgentResult.Pong;
import io.drover.model.agentapi.AgentResult.Ports;
import io.drover.model.agentapi.AgentResult.RunningJob;
import io.drover.model.agentapi.AgentResult.Text;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Maps {@link AgentCall}s to Salt's wire form ({@code fun} and its argument list) and back, and {@link AgentResult}s
 * to the value of a Salt return and back. The server encodes calls and decodes results; the agent decodes calls and
 * encodes results; both with this class, so the two sides cannot disagree.
 */
public final class AgentCallCodec {
    /** A call as Salt publishes it. */
    public record WireCall(String fun, SaltArgs args) {
    }

    private AgentCallCodec() {
    }

    public static WireCall encode(AgentCall<?> call) {
        return switch (call) {
            case Ping p -> wire("test.ping");
            case Echo e -> wire("test.echo", e.text());
            case AgentVersion v -> wire("test.version");
            case GetGrains g -> g.keys().isEmpty() ? wire("grains.items") : new WireCall("grains.item",
                    new SaltArgs(new ArrayList<>(g.keys()), Map.of()));
            case FindJob f -> wire("saltutil.find_job", f.jid());
            case AgentCall.KillJob k -> wire("saltutil.kill_job", k.jid());
            case RunCommand r -> wire("cmd.run", r.command());
            case RunScript s -> new WireCall("cmd.script", new SaltArgs(s.args().isEmpty() ? List.of(s.source())
                    : List.of(s.source(), s.args()), s.sha256() == null ? Map.of() : Map.of("sha256", s.sha256())));
            case WriteFile w -> w.mode() == null ? wire("file.write", w.path(), w.content())
                    : wire("file.write", w.path(), w.content(), w.mode());
            case FetchFile f -> {
                Map<String, Object> kw = new LinkedHashMap<>();
                kw.put("source", f.source());
                kw.put("sha256", f.sha256());
                if (f.mode() != null) {
                    kw.put("mode", f.mode());
                }
                yield new WireCall("file.write", new SaltArgs(List.of(f.path()), kw));
            }
            case RemoveFile r -> wire("file.remove", r.path());
            case UsedPorts u -> wire("sys.used_ports");
            case InstallPackage i -> wire("plugin.install_package", i.source(), i.sha256(), i.targetDir());
            case QueryPackage q -> wire("plugin.installed", q.targetDir());
            case AgentCall.UpgradeAgent u -> wire("agent.upgrade", u.source(), u.sha256(), u.version(), u.waitSeconds());
            case RemovePlugin r -> wire("plugin.remove", r.targetDir());
            case RegisterProcess r -> new WireCall("proc.register", new SaltArgs(List.of(r.spec().name()), spec(r.spec())));
            case UnregisterProcess u -> wire("proc.unregister", u.name());
            case OperateProcess o -> wire("proc.operate", o.name(), o.op().name());
            case RunPlan r -> wire("plan.execute", r.plan());
            case AgentCall.RunOperation o -> wire("diag.operation", json(o.run()));
        };
    }

    /** The call a received {@code fun} and argument list stand for. */
    public static AgentCall<?> decode(String fun, List<?> argList) {
        if (fun == null) {
            throw new UnknownFunction("(none)");
        }
        SaltArgs a = SaltArgs.parse(argList);
        return switch (fun) {
            case "test.ping" -> new Ping();
            case "test.echo" -> new Echo(a.text(0, "text", ""));
            case "test.version" -> new AgentVersion();
            case "grains.items" -> new GetGrains(List.of());
            case "grains.item" -> new GetGrains(a.positional().stream().map(String::valueOf).toList());
            case "saltutil.find_job" -> new FindJob(a.required(0, "jid"));
            case "saltutil.kill_job" -> new AgentCall.KillJob(a.required(0, "jid"));
            case "cmd.run" -> new RunCommand(a.required(0, "cmd"));
            case "cmd.script" -> new RunScript(a.required(0, "source"), a.text(-1, "sha256", null), words(a.raw(1, "args")));
            case "file.write" -> {
                String path = a.required(0, "path");
                String source = a.text(-1, "source", null);
                String content = a.text(1, "content", null);
                if ((source == null) == (content == null)) {
                    throw new BadCall("give either 'content' or 'source' (with 'sha256')");
                }
                String mode = a.text(2, "mode", null);
                yield source != null ? new FetchFile(path, source, a.required(-1, "sha256"), mode)
                        : new WriteFile(path, content, mode);
            }
            case "file.managed" -> managed(a);
            case "file.remove" -> new RemoveFile(a.required(0, "path"));
            case "sys.used_ports" -> new UsedPorts();
            case "plugin.install_package" -> new InstallPackage(a.required(0, "source"), a.required(1, "sha256"),
                    a.required(2, "target_dir"));
            case "plugin.installed" -> new QueryPackage(a.required(0, "target_dir"));
            case "agent.upgrade" -> new AgentCall.UpgradeAgent(a.required(0, "source"), a.required(1, "sha256"),
                    a.required(2, "version"), wholeNumber(a.text(3, "wait_seconds",
                            Integer.toString(AgentCall.UpgradeAgent.DEFAULT_WAIT_SECONDS)), "wait_seconds"));
            case "plugin.remove" -> new RemovePlugin(a.required(0, "target_dir"));
            case "proc.register" -> new RegisterProcess(new ProcessSpec(a.required(0, "name"), a.required(-1, "setup_path"),
                    a.required(-1, "pid_path"), a.text(-1, "user", null), a.required(-1, "start_cmd"),
                    a.text(-1, "stop_cmd", null), a.text(-1, "restart_cmd", null), a.text(-1, "reload_cmd", null),
                    a.text(-1, "version_cmd", null), a.text(-1, "health_cmd", null),
                    Boolean.parseBoolean(a.text(-1, "delegate", "false"))));
            case "proc.unregister" -> new UnregisterProcess(a.required(0, "name"));
            case "proc.operate" -> new OperateProcess(a.required(0, "name"), op(a.required(1, "op")));
            case "plan.execute" -> new RunPlan(a.required(0, "plan"));
            case "diag.operation" -> new AgentCall.RunOperation(operation(a.required(0, "run")));
            default -> throw new UnknownFunction(fun);
        };
    }

    /** The value of a Salt return for a result. */
    public static Object encodeResult(AgentResult result) {
        return switch (result) {
            case Pong p -> true;
            case Text t -> t.text();
            case Grains g -> g.values();
            case RunningJob j -> j.job();
            case CommandOutput c -> c.output();
            case Ports p -> p.ports();
            case AgentResult.PlanFinished p -> p.document();
            // the other results as the maps Json.json() would make of them (snake_case, nulls left out), written out
            // so that an agent does not load Jackson's databind (some 1,000 classes, ~9 MiB) to answer a deployment
            case AgentResult.JobKilled k -> fields("jid", k.jid(), "found", k.found(), "signalled", k.signalled());
            case AgentResult.FileWritten f -> fields("path", f.path(), "bytes", f.bytes(), "md5", f.md5());
            case AgentResult.FileRemoved f -> fields("path", f.path(), "removed", f.removed());
            case AgentResult.PackageInstalled p -> fields("target_dir", p.targetDir(), "files", p.files(), "sha256", p.sha256());
            case AgentResult.UpgradeHandedOver u -> fields("from_version", u.fromVersion(), "to_version", u.toVersion(),
                    "log", u.log());
            case AgentResult.InstalledPackage i -> fields("target_dir", i.targetDir(), "exists", i.exists(), "sha256", i.sha256());
            case AgentResult.OperationOutcome o -> fields("succeeded", o.succeeded(), "results", new LinkedHashMap<>(o.results()),
                    "error", o.error());
            case AgentResult.PluginRemoved r -> fields("target_dir", r.targetDir(), "removed", r.removed());
            case AgentResult.ProcessRegistered r -> fields("name", r.name(), "registered", r.registered());
            case AgentResult.ProcessUnregistered u -> fields("name", u.name(), "unregistered", u.unregistered());
            case AgentResult.ProcessState p -> fields("name", p.name(), "op", p.op() == null ? null : p.op().name(),
                    "status", p.status() == null ? null : p.status().name(), "pid", p.pid(), "version", p.version(),
                    "delegate", p.delegate(), "healthy", p.healthy());
        };
    }

    /** A map of the non-null values of alternating keys and values, in order. */
    private static Map<String, Object> fields(Object... keysAndValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            if (keysAndValues[i + 1] != null) {
                map.put((String) keysAndValues[i], keysAndValues[i + 1]);
            }
        }
        return map;
    }

    /** The result of {@code call} from a return's value and retcode; {@link BadCall} when the value has another shape. */
    @SuppressWarnings("unchecked")
    public static <R extends AgentResult> R decodeResult(AgentCall<R> call, Object value, int retcode) {
        Class<R> type = (Class<R>) resultType(call);
        try {
            Object result;
            if (type == Pong.class) {
                if (!Boolean.TRUE.equals(value)) {
                    throw new BadCall("answered " + brief(value) + " to " + encode(call).fun() + ", not true");
                }
                result = new Pong();
            } else if (type == Text.class) {
                result = new Text(String.valueOf(value));
            } else if (type == Grains.class) {
                result = new Grains(map(value));
            } else if (type == RunningJob.class) {
                result = new RunningJob(map(value));
            } else if (type == AgentResult.JobKilled.class && !(value instanceof Map<?, ?>)) {
                result = saltKilled(((AgentCall.KillJob) call).jid(), value);
            } else if (type == CommandOutput.class) {
                result = new CommandOutput(value == null ? "" : String.valueOf(value), retcode);
            } else if (type == AgentResult.PlanFinished.class) {
                result = new AgentResult.PlanFinished(map(value));
            } else if (type == Ports.class) {
                if (!(value instanceof List<?> list)) {
                    throw new BadCall("answered " + brief(value) + " where a list of ports was expected");
                }
                result = new Ports(list.stream().map(p -> p instanceof Number n ? n.intValue() : Integer.parseInt(String.valueOf(p)))
                        .toList());
            } else {
                if (!(value instanceof Map<?, ?>)) {
                    throw new BadCall("answered " + brief(value) + " where " + type.getSimpleName() + " was expected");
                }
                result = Json.json().convertValue(value, type);
            }
            return (R) result;
        } catch (IllegalArgumentException e) {
            throw e instanceof BadCall b ? b : new BadCall("answered " + brief(value) + " where " + type.getSimpleName()
                    + " was expected: " + e.getMessage());
        }
    }

    /**
     * A salt-minion's answer to {@code saltutil.kill_job}: "Signal 9 sent to job JID at pid PID" when it killed the
     * job's process, an empty string when no such job ran, another sentence when the job had just ended.
     */
    private static AgentResult.JobKilled saltKilled(String jid, Object value) {
        if (value != null && !(value instanceof String)) {
            throw new BadCall("answered " + brief(value) + " where JobKilled was expected");
        }
        boolean signalled = value != null && ((String) value).startsWith("Signal ");
        return new AgentResult.JobKilled(jid, signalled, signalled ? 1 : 0);
    }

    /** The record each call is answered with. */
    public static Class<? extends AgentResult> resultType(AgentCall<?> call) {
        return switch (call) {
            case Ping p -> Pong.class;
            case Echo e -> Text.class;
            case AgentVersion v -> Text.class;
            case GetGrains g -> Grains.class;
            case FindJob f -> RunningJob.class;
            case AgentCall.KillJob k -> AgentResult.JobKilled.class;
            case RunCommand r -> CommandOutput.class;
            case RunScript s -> CommandOutput.class;
            case WriteFile w -> AgentResult.FileWritten.class;
            case FetchFile f -> AgentResult.FileWritten.class;
            case RemoveFile r -> AgentResult.FileRemoved.class;
            case UsedPorts u -> Ports.class;
            case InstallPackage i -> AgentResult.PackageInstalled.class;
            case QueryPackage q -> AgentResult.InstalledPackage.class;
            case AgentCall.UpgradeAgent u -> AgentResult.UpgradeHandedOver.class;
            case RemovePlugin r -> AgentResult.PluginRemoved.class;
            case RegisterProcess r -> AgentResult.ProcessRegistered.class;
            case UnregisterProcess u -> AgentResult.ProcessUnregistered.class;
            case OperateProcess o -> AgentResult.ProcessState.class;
            case RunPlan r -> AgentResult.PlanFinished.class;
            case AgentCall.RunOperation o -> AgentResult.OperationOutcome.class;
        };
    }

    /**
     * Salt's {@code file.managed NAME contents=… | source=salt://… source_hash=sha256:… [mode=…]}, as a SaltStack
     * script of an execution plan writes it: the same write as {@code file.write} (which is what the server sends).
     */
    private static AgentCall<AgentResult.FileWritten> managed(SaltArgs a) {
        String path = a.required(0, "name");
        String contents = a.text(-1, "contents", null);
        String source = a.text(-1, "source", null);
        String mode = a.text(-1, "mode", null);
        if ((source == null) == (contents == null)) {
            throw new BadCall("give either 'contents' or 'source' (with 'source_hash: sha256:…')");
        }
        if (contents != null) {
            return new WriteFile(path, contents, mode);
        }
        String hash = a.required(-1, "source_hash");
        return new FetchFile(path, source.replaceFirst("^salt://", ""), hash.replaceFirst("^sha256[:=]", ""), mode);
    }

    private static String json(Object value) {
        try {
            return Json.json().writeValueAsString(value);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new BadCall("cannot encode " + value + ": " + e.getOriginalMessage());
        }
    }

    private static OperationRequest operation(String text) {
        try {
            OperationRequest run = Json.json().readValue(text, OperationRequest.class);
            if (run.processor() == null || run.operation() == null) {
                throw new BadCall("an operation needs 'operation' and 'processor'");
            }
            return run;
        } catch (java.io.IOException e) {
            throw new BadCall("the operation is not a valid document: " + e.getMessage().lines().findFirst().orElse(""));
        }
    }

    private static int wholeNumber(String text, String name) {
        if (text == null || !text.matches("[0-9]{1,9}")) {
            throw new BadCall("'" + name + "' must be a whole number, not " + brief(text));
        }
        return Integer.parseInt(text);
    }

    private static WireCall wire(String fun, Object... positional) {
        return new WireCall(fun, new SaltArgs(List.of(positional), Map.of()));
    }

    private static Map<String, Object> spec(ProcessSpec s) {
        Map<String, Object> kw = new LinkedHashMap<>();
        kw.put("setup_path", s.setupPath());
        kw.put("pid_path", s.pidPath());
        kw.put("start_cmd", s.startCmd());
        putIfPresent(kw, "user", s.user());
        putIfPresent(kw, "stop_cmd", s.stopCmd());
        putIfPresent(kw, "restart_cmd", s.restartCmd());
        putIfPresent(kw, "reload_cmd", s.reloadCmd());
        putIfPresent(kw, "version_cmd", s.versionCmd());
        putIfPresent(kw, "health_cmd", s.healthCmd());
        kw.put("delegate", String.valueOf(s.delegate()));
        return kw;
    }

    private static void putIfPresent(Map<String, Object> map, String key, String value) {
        if (value != null) {
            map.put(key, value);
        }
    }

    private static ProcessOp op(String op) {
        try {
            return ProcessOp.valueOf(op.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new BadCall("op '" + op + "' is not one of " + String.join(", ",
                    java.util.Arrays.stream(ProcessOp.values()).map(Enum::name).toList()));
        }
    }

    /** Script arguments: a list, or (as in Salt) one string split on blanks (no shell quoting). */
    private static List<String> words(Object args) {
        if (args instanceof List<?> list) {
            return list.stream().map(String::valueOf).toList();
        }
        if (args == null) {
            return List.of();
        }
        return java.util.Arrays.stream(String.valueOf(args).strip().split("\\s+")).filter(w -> !w.isEmpty()).toList();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        if (value instanceof Map<?, ?> m) {
            return (Map<String, Object>) m;
        }
        throw new BadCall("answered " + brief(value) + " where a mapping was expected");
    }

    private static String brief(Object value) {
        String text = String.valueOf(value);
        return text.length() > 120 ? text.substring(0, 120) + "…" : text;
    }
}
