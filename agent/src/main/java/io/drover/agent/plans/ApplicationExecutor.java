package io.drover.agent.plans;

import io.drover.core.plans.CommandLineFormat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Application: the entry point is made executable and run through {@code /bin/sh} in the script's folder as
 * {@code ./<name> <commandline>}, the command line made by {@link CommandLineFormat} from the call's first argument
 * (or {@code commandline=}), its other arguments passed as the shell's positional parameters (never as shell text);
 * {@code input=} goes to its stdin, as the reference agent's.
 * Functions are not a thing here: {@code app.fn(x)} runs the whole script too.
 */
final class ApplicationExecutor extends ProcessExecutor {
    ApplicationExecutor() {
        super("Application", null);
    }

    @Override
    public Object run(PlanContext plan, LoadedScript script, String function, List<Object> args, Map<String, Object> kwargs)
            throws InterruptedException {
        boolean named = kwargs.containsKey("commandline");
        Object line = named ? kwargs.get("commandline") : args.isEmpty() ? "" : args.get(0);
        List<Object> positional = named || args.isEmpty() ? args : args.subList(1, args.size());
        Map<String, Object> keywords = new LinkedHashMap<>(kwargs);
        keywords.remove("commandline");
        Object input = keywords.remove("input");
        CommandLineFormat.CommandLine commandLine = CommandLineFormat.format(word(line), positional, keywords);
        makeExecutable(script.entryPoint());
        List<String> command = new ArrayList<>(List.of("/bin/sh", "-c",
                "./" + CommandLineFormat.quote(script.entryName()) + " " + commandLine.text(), "sh"));
        command.addAll(commandLine.words());
        return finish(plan, script, function, command, input == null ? null : word(input));
    }

    @Override
    List<String> command(LoadedScript script, String function, List<String> args) {
        throw new UnsupportedOperationException("Application builds its command in run");
    }

    private static void makeExecutable(Path link) {
        try {
            Path file = link.toRealPath();
            Set<PosixFilePermission> permissions = EnumSet.copyOf(Files.getPosixFilePermissions(file));
            permissions.addAll(Set.of(PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.GROUP_EXECUTE));
            Files.setPosixFilePermissions(file, permissions);
        } catch (IOException | UnsupportedOperationException e) {
            // the shell will say the file cannot be executed
        }
    }
}
