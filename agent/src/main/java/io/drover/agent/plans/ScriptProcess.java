package io.drover.agent.plans;

import io.drover.agent.jobs.JobProcesses;
import io.drover.core.plans.PlanErrorCode;
import io.drover.core.plans.PlanException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs one script process for an executor, in its own process group: stdout and stderr to temporary files (a pipe
 * would be held open by anything the script leaves in the background), at most {@link #MAX_OUTPUT} bytes of each
 * kept; on timeout the group is killed and the call fails with code 10.
 */
final class ScriptProcess {
    static final int MAX_OUTPUT = 1 << 20;

    /** How one run is set up. */
    record Spec(List<String> command, Path cwd, String input, boolean captureStdout, boolean captureStderr, Duration timeout) {
    }

    /** The run: exit code and captured output (stripped; null when empty or not captured), as the reference agent. */
    record Outcome(int exitCode, String stdout, String stderr) {
        Map<String, Object> toMap() {
            Map<String, Object> map = new LinkedHashMap<>();
            map.put("exitCode", exitCode);
            map.put("stdout", stdout);
            map.put("stderr", stderr);
            return map;
        }
    }

    private final PlanContext plan;

    ScriptProcess(PlanContext plan) {
        this.plan = plan;
    }

    Outcome run(String script, Spec spec) throws InterruptedException {
        Path out = null;
        Path err = null;
        Path in = null;
        try {
            Path tmp = plan.workDir().resolve("tmp");
            Files.createDirectories(tmp);
            out = Files.createTempFile(tmp, "out-", ".txt");
            err = Files.createTempFile(tmp, "err-", ".txt");
            ProcessBuilder builder = new ProcessBuilder(ProcessGroups.grouped(spec.command())).directory(spec.cwd().toFile())
                    .redirectOutput(spec.captureStdout() ? ProcessBuilder.Redirect.to(out.toFile()) : ProcessBuilder.Redirect.DISCARD)
                    .redirectError(spec.captureStderr() ? ProcessBuilder.Redirect.to(err.toFile()) : ProcessBuilder.Redirect.DISCARD);
            if (spec.input() != null) {
                in = Files.createTempFile(tmp, "in-", ".txt");
                Files.writeString(in, spec.input());
                builder.redirectInput(in.toFile());
            } else {
                builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            }
            Duration limit = plan.limit(spec.timeout());
            Process process = builder.start();
            plan.track(process);
            JobProcesses.started(process);
            boolean done;
            try {
                done = process.waitFor(Math.max(1, limit.toMillis()), TimeUnit.MILLISECONDS);
            } finally {
                if (process.isAlive()) {
                    ProcessGroups.kill(process);
                }
                plan.untrack(process);
                JobProcesses.ended(process);
            }
            if (!done || plan.timedOut()) {
                throw new PlanException(PlanErrorCode.TIMEOUT, "Script " + script + " timed out after "
                        + limit.toSeconds() + " s; its process group was killed");
            }
            return new Outcome(process.exitValue(), spec.captureStdout() ? text(out) : null,
                    spec.captureStderr() ? text(err) : null);
        } catch (IOException e) {
            throw new PlanException(PlanErrorCode.GENERIC, "Script " + script + " could not start: " + e.getMessage());
        } finally {
            deleteQuietly(out);
            deleteQuietly(err);
            deleteQuietly(in);
        }
    }

    private static String text(Path file) throws IOException {
        if (!Files.isRegularFile(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            // a FIFO the script put in its place would block the read forever
            throw new PlanException(PlanErrorCode.GENERIC, "The script's output file " + file.getFileName()
                    + " is not a regular file any more; it was not read");
        }
        try (InputStream stream = Files.newInputStream(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            String text = new String(stream.readNBytes(MAX_OUTPUT), StandardCharsets.UTF_8).strip();
            return text.isEmpty() ? null : text;
        }
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
