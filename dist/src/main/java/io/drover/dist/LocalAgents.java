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
 * the same Java as this process, its class path without the server's libraries and the agent's small-heap flags
 * (those of {@code bin/drover agent}); stopped with it.
 */
final class LocalAgents implements AutoCloseable {
    /** This process's class path without the server's own libraries (directories and other jars stay, in order). */
    static String agentClassPath(String classPath) {
        List<String> kept = new ArrayList<>();
        for (String entry : classPath.split(File.pathSeparator)) {
            String name = entry.substring(entry.lastIndexOf(File.separatorChar) + 1);
            if (!AgentLaunch.serverOnly(name) && !entry.isEmpty()) {
                kept.add(entry);
            }
        }
        return String.join(File.pathSeparator, kept);
    }

    private final List<Process> processes = new ArrayList<>();

    /** Agent N gets {@code addresses[N-1]} as its inner IP and presents the enrollment token (through the environment). */
    LocalAgents(Path dataDir, int count, String masterHost, int requestPort, int publishPort, String enrollToken,
                List<String> addresses) {
        String java = ProcessHandle.current().info().command().orElse("java");
        String classPath = agentClassPath(System.getProperty("java.class.path"));
        try {
            for (int i = 1; i <= count; i++) {
                Path root = dataDir.resolve("host-" + i).toAbsolutePath();
                Files.createDirectories(root);
                List<String> command = new ArrayList<>(List.of(java));
                command.addAll(AgentLaunch.JVM_OPTIONS);
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
