package io.drover.agent.install;

import io.drover.core.agents.AgentPackageName;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * The agent package the running agent was started from: its launcher {@code bin/drover-agent} passes the package
 * directory as {@code -Ddrover.agent.home}. Absent when the agent runs otherwise (the {@code drover} distribution,
 * tests).
 */
public final class AgentHome {
    private AgentHome() {
    }

    /** The package directory the launcher named, or null. */
    public static Path fromSystem() {
        String home = System.getProperty("drover.agent.home");
        return home == null || home.isBlank() ? null : Path.of(home);
    }

    /**
     * The version the agent reports (jobs, heartbeats, sign-in file): the package's {@code VERSION} when it runs from
     * a package, so that what the server asked to install is what it sees come back; else {@code buildVersion}.
     */
    public static String version(Path home, String buildVersion) {
        if (home == null) {
            return buildVersion;
        }
        Path file = home.resolve("VERSION");
        try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
            String text = new String(in.readNBytes(256), StandardCharsets.UTF_8);
            int newline = text.indexOf('\n');
            String version = (newline < 0 ? text : text.substring(0, newline)).strip();
            return AgentPackageName.versionProblem(version) == null ? version : buildVersion;
        } catch (IOException e) {
            return buildVersion;
        }
    }
}
