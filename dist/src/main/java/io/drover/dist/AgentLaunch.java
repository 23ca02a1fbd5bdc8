package io.drover.dist;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * How an agent's JVM is started, from the two files the launchers read too ({@code lib/agent-jvm-options} and
 * {@code lib/server-only-jars}, packed into this jar as resources): its flags, and the jars it leaves off its class
 * path. One list each for {@code bin/drover agent}, the agent package's {@code bin/drover-agent} and the quickstart's
 * local agents.
 */
final class AgentLaunch {
    static final List<String> JVM_OPTIONS = words("agent-jvm-options");
    /** Shell patterns of file names; each is a prefix followed by {@code *}. */
    static final List<String> SERVER_ONLY_JARS = words("server-only-jars");

    private AgentLaunch() {
    }

    /** Whether a jar (by file name) is one of the server's libraries the agent leaves off its class path. */
    static boolean serverOnly(String jarName) {
        return jarName.endsWith(".jar") && SERVER_ONLY_JARS.stream()
                .anyMatch(pattern -> jarName.startsWith(pattern.substring(0, pattern.length() - 1)));
    }

    /** The file's words, its comment lines left out. */
    private static List<String> words(String name) {
        try (InputStream in = AgentLaunch.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing from the distribution's jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().filter(line -> !line.startsWith("#"))
                    .flatMap(line -> Arrays.stream(line.strip().split("\\s+"))).filter(word -> !word.isEmpty()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
