package io.drover.dist;

import io.drover.server.testing.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A {@code drover agent} in its own JVM, so that a test can kill it with SIGKILL; its output goes to a log file. */
final class AgentProcess {
    private AgentProcess() {
    }

    static Process start(TestServer server, String id, Path root, Path log, String... extra) throws Exception {
        var master = server.server().master();
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-Xmx128m",
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "agent", "--id", id,
                "--master", "127.0.0.1:" + master.requestPort(), "--publish-port", Integer.toString(master.publishPort()),
                "--root", root.toString()));
        command.addAll(List.of(extra));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    }

    /** An agent with no Drover server, taking execution plans over AMQP only ({@code extra} holds its --amqp-* options). */
    static Process startAmqpOnly(String id, Path root, Path log, String... extra) throws Exception {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-Xmx128m",
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "agent", "--id", id, "--root", root.toString()));
        command.addAll(List.of(extra));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    }

    /** SIGKILL, and wait until it is gone. */
    static void kill(Process process) throws InterruptedException {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }

    /** The last lines of the agent's log, for a failing test's output. */
    static void printTail(Path log) throws Exception {
        if (Files.exists(log)) {
            List<String> lines = Files.readAllLines(log);
            System.out.println("--- " + log.getFileName() + ", last lines:");
            lines.subList(Math.max(0, lines.size() - 40), lines.size()).forEach(System.out::println);
        }
    }
}
