package io.drover.dist;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The quickstart's simulated hosts: {@code drover agent} processes, each with its own root directory, started with
 * the same Java and class path as this process and the agent's small-heap flags; stopped with it.
 */
final class LocalAgents implements AutoCloseable {
    /** The same flags and malloc setting as {@code bin/drover agent}. */
    static final List<String> AGENT_JVM_FLAGS = List.of("-Xms8m", "-Xmx32m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-Xss256k", "-XX:ReservedCodeCacheSize=16m", "-XX:MaxMetaspaceSize=48m", "-Xshare:off", "-XX:+IgnoreUnrecognizedVMOptions",
            "-XX:+UseCompactObjectHeaders", "-XX:TrimNativeHeapInterval=5000");

    private final List<Process> processes = new ArrayList<>();

    /** Agent N gets {@code addresses[N-1]} as its inner IP and presents the enrollment token (through the environment). */
    LocalAgents(Path dataDir, int count, String masterHost, int requestPort, int publishPort, String enrollToken,
                List<String> addresses) {
        String java = ProcessHandle.current().info().command().orElse("java");
        String classPath = System.getProperty("java.class.path");
        try {
            for (int i = 1; i <= count; i++) {
                Path root = dataDir.resolve("host-" + i).toAbsolutePath();
                Files.createDirectories(root);
                List<String> command = new ArrayList<>(List.of(java));
                command.addAll(AGENT_JVM_FLAGS);
                command.addAll(List.of("-cp", classPath, Main.class.getName(), "agent", "--id", "host-" + i,
                        "--master", masterHost + ":" + requestPort, "--publish-port", Integer.toString(publishPort),
                        "--root", root.toString(), "--ip", addresses.get(i - 1)));
                File log = root.resolve("agent.log").toFile();
                ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(log));
                builder.environment().put("DROVER_ENROLL_TOKEN", enrollToken);
                builder.environment().put("MALLOC_ARENA_MAX", "1");
                processes.add(builder.start());
            }
        } catch (IOException e) {
            close();
            throw new UncheckedIOException("cannot start the local agents", e);
        }
    }

    @Override
    public void close() {
        processes.forEach(Process::destroy);
        for (Process p : processes) {
            try {
                if (!p.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
            }
        }
    }
}
