package io.drover.agent.plans;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts processes as leaders of their own process group (with util-linux {@code setsid} where it exists), so that a
 * timeout kills a script and everything it started, not just the process the agent spawned.
 */
public final class ProcessGroups {
    private static final Path SETSID = findOnPath("setsid");

    private ProcessGroups() {
    }

    /** The command, wrapped to start a new process group when the host can. */
    public static List<String> grouped(List<String> command) {
        if (SETSID == null) {
            return command;
        }
        List<String> wrapped = new ArrayList<>();
        wrapped.add(SETSID.toString());
        wrapped.addAll(command);
        return wrapped;
    }

    /** Kills the process's group (and, where there is no group, its descendants) with SIGKILL. */
    public static void kill(Process process) {
        signalGroup(process, "-KILL");
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    /** Asks the process's group (and, where there is no group, its descendants) to stop, with SIGTERM. */
    public static void terminate(Process process) {
        signalGroup(process, "-TERM");
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
    }

    private static void signalGroup(Process process, String signal) {
        if (SETSID != null && process.isAlive()) {
            try {
                new ProcessBuilder("kill", signal, "--", "-" + process.pid()).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor(5, TimeUnit.SECONDS);
            } catch (IOException e) {
                // fall through to the descendants
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** An executable of that name on PATH, or null. */
    public static Path findOnPath(String name) {
        String path = System.getenv("PATH");
        for (String dir : (path == null ? "/usr/local/bin:/usr/bin:/bin" : path).split(":")) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }
}
