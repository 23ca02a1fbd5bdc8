package io.drover.agent.plans;

import io.drover.core.plans.PlanErrorCode;
import io.drover.core.plans.PlanException;
import io.drover.model.plans.PlanJson;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Python: a whole script runs as {@code python3 <entry> <args…>} (keywords as {@code --name=value}, {@code input=}
 * on stdin) and answers {@code {exitCode, stdout, stderr}}. A function call ({@code py.fn(1, x=2)}) loads the file
 * and calls {@code fn(1, x=2)}: positional arguments positionally, keywords as keywords, each with its JSON value
 * (they travel in a file, never on the command line); the call's result is the function's return value (as JSON;
 * what JSON cannot hold becomes its {@code str}). A function that raises is error 100 with its traceback in stderr.
 */
final class PythonExecutor extends ProcessExecutor {
    /** The largest return value read back. */
    static final int MAX_RESULT = 16 << 20;
    private static final String CALLER = """
            import json, runpy, sys
            with open(sys.argv[3], encoding='utf-8') as f:
                call = json.load(f)
            result = runpy.run_path(sys.argv[1])[sys.argv[2]](*call['args'], **call['kwargs'])
            with open(sys.argv[4], 'w', encoding='utf-8') as f:
                json.dump(result, f, default=str)
            """;

    PythonExecutor() {
        super("Python", "python3");
    }

    @Override
    List<String> command(LoadedScript script, String function, List<String> args) {
        List<String> command = new ArrayList<>(List.of("python3", entry(script)));
        command.addAll(args);
        return command;
    }

    @Override
    public Object run(PlanContext plan, LoadedScript script, String function, List<Object> args, Map<String, Object> kwargs)
            throws InterruptedException {
        if (function == null) {
            return super.run(plan, script, function, args, kwargs);
        }
        Path call = null;
        Path result = null;
        try {
            Path tmp = plan.workDir().resolve("tmp");
            Files.createDirectories(tmp);
            call = Files.createTempFile(tmp, "call-", ".json");
            result = Files.createTempFile(tmp, "result-", ".json");
            Map<String, Object> document = new LinkedHashMap<>();
            document.put("args", args);
            document.put("kwargs", kwargs);
            Files.writeString(call, PlanJson.write(document));
            ScriptProcess.Outcome outcome = execute(plan, script, List.of("python3", "-c", CALLER, entry(script), function,
                    call.toString(), result.toString()), null);
            if (outcome.exitCode() != 0) {
                return outcome.toMap();
            }
            return read(script, result);
        } catch (IOException e) {
            throw new PlanException(PlanErrorCode.GENERIC, "Script " + script.script().name() + ": the call of " + function
                    + " could not be passed or read back: " + e.getMessage());
        } finally {
            deleteQuietly(call);
            deleteQuietly(result);
        }
    }

    /** The result file, read no further than the limit and only as the regular file it was made (the function may swap it). */
    private static Object read(LoadedScript script, Path result) throws IOException {
        if (!Files.isRegularFile(result, LinkOption.NOFOLLOW_LINKS)) {
            throw new PlanException(PlanErrorCode.GENERIC, "Script " + script.script().name()
                    + ": the file its function's return value was written to is not a regular file any more");
        }
        byte[] bytes;
        try (InputStream in = Files.newInputStream(result, LinkOption.NOFOLLOW_LINKS)) {
            bytes = in.readNBytes(MAX_RESULT + 1);
        }
        if (bytes.length > MAX_RESULT) {
            throw new PlanException(PlanErrorCode.GENERIC, "Script " + script.script().name() + " returned a value over "
                    + MAX_RESULT + " bytes as JSON");
        }
        return PlanJson.read(bytes);
    }

    private static void deleteQuietly(Path file) {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // the working directory goes with the plan
            }
        }
    }
}
