package io.drover.agent.plans;

import io.drover.core.plans.CommandLineFormat;
import io.drover.core.plans.PlanErrorCode;
import io.drover.core.plans.PlanException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * An executor that runs each call as a process and answers {@code {exitCode, stdout, stderr}}; with
 * {@code verifyExitcode} (the default) a non-zero exit is error 100 carrying that map, as the reference agent does.
 * The call's {@code input} keyword goes to the script's stdin; other keywords become {@code --key=value} arguments.
 */
abstract class ProcessExecutor implements ScriptExecutor {
    private final String type;
    private final String tool;

    /** {@code tool}: the program the platform needs on PATH, or null when it needs none. */
    ProcessExecutor(String type, String tool) {
        this.type = type;
        this.tool = tool;
    }

    @Override
    public String type() {
        return type;
    }

    @Override
    public String missing() {
        return tool == null || ProcessGroups.findOnPath(tool) != null ? null
                : type + " scripts need " + tool + ", which is not installed on this host";
    }

    /** The command line for one call. */
    abstract List<String> command(LoadedScript script, String function, List<String> args);

    @Override
    public Object run(PlanContext plan, LoadedScript script, String function, List<Object> args, Map<String, Object> kwargs)
            throws InterruptedException {
        List<String> words = new ArrayList<>();
        args.forEach(a -> words.add(word(a)));
        String input = null;
        for (Map.Entry<String, Object> kw : kwargs.entrySet()) {
            if (kw.getKey().equals("input")) {
                input = kw.getValue() == null ? null : word(kw.getValue());
            } else {
                words.add("--" + kw.getKey() + "=" + word(kw.getValue()));
            }
        }
        return finish(plan, script, function, command(script, function, words), input);
    }

    Object finish(PlanContext plan, LoadedScript script, String function, List<String> command, String input)
            throws InterruptedException {
        return execute(plan, script, command, input).toMap();
    }

    /** Runs one call's process; with verifyExitcode a non-zero exit is error 100. */
    ScriptProcess.Outcome execute(PlanContext plan, LoadedScript script, List<String> command, String input)
            throws InterruptedException {
        ScriptProcess.Outcome outcome = new ScriptProcess(plan).run(script.script().name(), new ScriptProcess.Spec(command,
                script.folder(), input, script.script().flag("captureStdout", true), script.script().flag("captureStderr", true),
                script.timeout()));
        if (outcome.exitCode() != 0 && script.script().flag("verifyExitcode", true)) {
            throw new PlanException(PlanErrorCode.USER_BASE, "Script " + script.script().name() + " returned error code",
                    outcome.toMap());
        }
        return outcome;
    }

    static String word(Object value) {
        return CommandLineFormat.word(value);
    }

    static String entry(LoadedScript script) {
        return script.entryPoint().toString();
    }

    static Path folder(LoadedScript script) {
        return script.folder();
    }
}
