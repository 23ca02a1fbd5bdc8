package io.drover.agent.plans;

import io.drover.core.plans.PlanErrorCode;
import io.drover.core.plans.PlanException;
import io.drover.model.Json;
import io.drover.model.agentapi.SaltArgs;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * SaltStack: calls the agent's own functions. {@code salt.cmd_run('ls')} calls {@code cmd.run} (the first
 * underscore is the dot); the keywords become Salt keyword arguments. Calling the script as a whole runs its entry
 * point, a YAML or JSON list of {@code {fun: …, arg: […], kwarg: {…}}} in order, stopping at the first failure, and
 * answers the list of returns. A failing function is error 100 with its retcode and return; one still running at the
 * script's {@code timeout} option is stopped (its command killed) and the call fails with 10.
 */
public final class SaltStackExecutor implements ScriptExecutor {
    /** The agent's functions: Salt's fun and argument list in, the return value and retcode out. */
    public interface AgentFunctions {
        Reply call(String fun, List<Object> args);
    }

    public record Reply(Object value, int retcode) {
    }

    private static final int MAX_STEPS = 1000;
    private final AgentFunctions functions;

    SaltStackExecutor(AgentFunctions functions) {
        this.functions = functions;
    }

    @Override
    public String type() {
        return "SaltStack";
    }

    @Override
    public String missing() {
        return null;
    }

    @Override
    public Object run(PlanContext plan, LoadedScript script, String function, List<Object> args, Map<String, Object> kwargs)
            throws InterruptedException {
        if (function != null) {
            int underscore = function.indexOf('_');
            if (underscore <= 0 || underscore == function.length() - 1) {
                throw new PlanException(PlanErrorCode.GENERIC, "Script " + script.script().name() + ": " + function
                        + " does not name a function (write module_function, e.g. cmd_run for cmd.run)");
            }
            String fun = function.substring(0, underscore) + "." + function.substring(underscore + 1);
            return call(plan, script, fun, args, kwargs);
        }
        List<Object> returns = new ArrayList<>();
        for (Map<?, ?> step : steps(script)) {
            List<Object> stepArgs = step.get("arg") instanceof List<?> list ? new ArrayList<>(list) : new ArrayList<>();
            Map<String, Object> stepKwargs = new LinkedHashMap<>();
            if (step.get("kwarg") instanceof Map<?, ?> map) {
                map.forEach((k, v) -> stepKwargs.put(String.valueOf(k), v));
            }
            returns.add(call(plan, script, String.valueOf(step.get("fun")), stepArgs, stepKwargs));
        }
        return returns;
    }

    private Object call(PlanContext plan, LoadedScript script, String fun, List<Object> args, Map<String, Object> kwargs)
            throws InterruptedException {
        List<Object> wire = new SaltArgs(args, kwargs).toList();
        if (fun.equals("plan.execute")) {
            throw new PlanException(PlanErrorCode.GENERIC, "Script " + script.script().name() + ": a plan cannot run another plan");
        }
        Reply reply = withinLimit(plan, script, fun, wire);
        if (reply.retcode() != 0) {
            Map<String, Object> info = new LinkedHashMap<>();
            info.put("function", fun);
            info.put("retcode", reply.retcode());
            info.put("return", reply.value());
            throw new PlanException(PlanErrorCode.USER_BASE, "Script " + script.script().name() + ": " + fun + " failed", info);
        }
        return reply.value();
    }

    /**
     * The function runs on its own thread; past the script's {@code timeout} (or the plan's limit) that thread is
     * interrupted, which kills a command the function runs (cmd.run, cmd.script), and the call fails with 10.
     */
    private Reply withinLimit(PlanContext plan, LoadedScript script, String fun, List<Object> wire) throws InterruptedException {
        Duration limit = plan.limit(script.timeout());
        FutureTask<Reply> task = new FutureTask<>(() -> functions.call(fun, wire));
        Thread.ofVirtual().name("plan-salt-" + fun).start(task);
        try {
            return task.get(Math.max(1, limit.toMillis()), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            task.cancel(true);
            throw new PlanException(PlanErrorCode.TIMEOUT, "Script " + script.script().name() + ": " + fun + " did not finish within "
                    + limit.toMillis() / 1000.0 + " s; it was stopped");
        } catch (InterruptedException e) {
            task.cancel(true);
            throw e;
        } catch (ExecutionException e) {
            throw new PlanException(PlanErrorCode.GENERIC, "Script " + script.script().name() + ": " + fun + " failed: "
                    + e.getCause());
        }
    }

    private static List<Map<?, ?>> steps(LoadedScript script) {
        Object document;
        try {
            document = Json.yaml().readValue(Files.readString(script.entryPoint()), Object.class);
        } catch (IOException e) {
            throw new PlanException(PlanErrorCode.BAD_FORMAT, "Script " + script.script().name() + ": its entry point "
                    + script.entryName() + " is not a YAML list of {fun, arg, kwarg}: " + firstLine(e.getMessage()));
        }
        List<Map<?, ?>> steps = new ArrayList<>();
        if (document instanceof List<?> list && list.size() <= MAX_STEPS) {
            for (Object step : list) {
                if (step instanceof Map<?, ?> map && map.get("fun") instanceof String) {
                    steps.add(map);
                } else {
                    steps = null;
                    break;
                }
            }
            if (steps != null) {
                return steps;
            }
        }
        throw new PlanException(PlanErrorCode.BAD_FORMAT, "Script " + script.script().name() + ": its entry point "
                + script.entryName() + " must be a list of at most " + MAX_STEPS + " {fun, arg, kwarg} entries");
    }

    private static String firstLine(String text) {
        return text == null ? "" : text.lines().findFirst().orElse("");
    }
}
