package io.drover.agent.plans;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Application: the entry point is made executable and run through {@code /bin/sh} in the script's folder as
 * {@code ./<name> <commandline>}, where the command line is the call's first argument (or {@code commandline=}),
 * as the reference agent does. Functions are not a thing here: {@code app.fn(x)} runs the whole script too.
 */
final class ApplicationExecutor extends ProcessExecutor {
    ApplicationExecutor() {
        super("Application", null);
    }

    @Override
    public Object run(PlanContext plan, LoadedScript script, String function, List<Object> args, Map<String, Object> kwargs)
            throws InterruptedException {
        Object line = kwargs.containsKey("commandline") ? kwargs.get("commandline") : args.isEmpty() ? "" : args.get(0);
        Object input = kwargs.get("input");
        makeExecutable(script.entryPoint());
        String command = "./" + shellQuote(script.entryName()) + " " + word(line);
        return finish(plan, script, function, List.of("/bin/sh", "-c", command), input == null ? null : word(input));
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
