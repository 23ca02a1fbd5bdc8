package io.drover.agent.supervisor;

import io.drover.agent.jobs.JobProcesses;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a command with a timeout. Output goes to a temporary file, not a pipe: a command that leaves a background
 * process behind (a start script, {@code sleep 9 &}) would hold a pipe open, and reading it would outlast the timeout.
 */
public final class Shell {
    /** Exit code reported for a command that ran out of time (as coreutils' {@code timeout}). */
    public static final int TIMED_OUT = 124;
    private static final File NO_INPUT = new File("/dev/null");

    private Shell() {
    }

    /** A command's exit code and (at most {@code maxOutput} bytes of) its combined stdout and stderr. */
    public record Outcome(int exit, String output, boolean timedOut) {
        /** The output without its final newline, as Salt's cmd.run answers. */
        public String text() {
            return output.endsWith("\n") ? output.substring(0, output.length() - 1) : output;
        }
    }

    public static Outcome run(List<String> command, Path cwd, Duration timeout, int maxOutput)
            throws IOException, InterruptedException {
        Path out = Files.createTempFile("drover-cmd-", ".out");
        try {
            Process process = new ProcessBuilder(command).directory(cwd.toFile()).redirectInput(NO_INPUT)
                    .redirectErrorStream(true).redirectOutput(out.toFile()).start();
            JobProcesses.started(process);
            boolean done;
            try {
                done = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                kill(process);
                throw e;
            } finally {
                JobProcesses.ended(process);
            }
            if (!done) {
                kill(process);
            }
            return new Outcome(done ? process.exitValue() : TIMED_OUT, head(out, maxOutput), !done);
        } finally {
            Files.deleteIfExists(out);
        }
    }

    private static void kill(Process process) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    static String head(Path file, int max) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return new String(in.readNBytes(max), StandardCharsets.UTF_8);
        }
    }
}
