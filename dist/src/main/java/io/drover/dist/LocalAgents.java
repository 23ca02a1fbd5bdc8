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
    /** The same flags and malloc setting as {@code bin/drover agent} (LocalAgentsTest compares them). */
    static final List<String> AGENT_JVM_FLAGS = List.of("-Xms8m", "-Xmx32m", "-Xmn1m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1", "-XX:CompileThresholdScaling=10", "-Xss256k", "-XX:ReservedCodeCacheSize=16m",
            "-XX:MaxMetaspaceSize=48m", "-Xshare:off", "-XX:+IgnoreUnrecognizedVMOptions", "-XX:+UseCompactObjectHeaders",
            "-XX:TrimNativeHeapInterval=5000", "-XX:StringTableSize=4096", "-XX:+UnlockExperimentalVMOptions",
            "-XX:SymbolTableSize=4096", "-XX:-UsePerfData");

    /**
     * The server-only jars {@code bin/drover agent} leaves off the agent's class path (every open jar keeps its central
     * directory on the agent's small heap), as the prefixes of their file names; LocalAgentsTest compares them with
     * the launcher's list.
     */
    static final List<String> SERVER_ONLY_JARS = List.of("HdrHistogram-", "HikariCP-", "JavaEWAH-", "annotations-13.",
            "asm-", "bcprov-", "commons-codec-", "flyway-", "geantyref-", "jakarta.", "sqlite-jdbc-", "javalin-", "jdbi3-", "jetty-",
            "jnats-", "kotlin-", "micrometer-", "org.eclipse.jgit", "postgresql-", "prometheus-metrics-");

    /** This process's class path without {@link #SERVER_ONLY_JARS} (directories and other jars stay, in order). */
    static String agentClassPath(String classPath) {
        List<String> kept = new ArrayList<>();
        for (String entry : classPath.split(File.pathSeparator)) {
            String name = entry.substring(entry.lastIndexOf(File.separatorChar) + 1);
            boolean serverOnly = false;
            if (name.endsWith(".jar")) {
                for (String prefix : SERVER_ONLY_JARS) {
                    serverOnly |= name.startsWith(prefix);
                }
            }
            if (!serverOnly && !entry.isEmpty()) {
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
