package io.drover.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The agent leaves the server's libraries (dist/src/dist/lib/server-only-jars) off its class path (each open jar keeps its central
 * directory on the agent's small heap): none of them may be a dependency of the agent.
 */
class AgentClassPathTest {
    private static final Path SERVER_ONLY = Path.of("../dist/src/dist/lib/server-only-jars");

    @Test
    void noJarTheLauncherLeavesOutIsOnTheAgentsClassPath() throws IOException {
        List<Pattern> excluded = excludedJars(Files.readString(SERVER_ONLY));
        assertThat(excluded).as("patterns in " + SERVER_ONLY).hasSizeGreaterThan(10);
        List<String> jars = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String name = Path.of(entry).getFileName().toString();
            if (name.endsWith(".jar")) {
                jars.add(name);
            }
        }
        assertThat(jars).as("the agent's class path").isNotEmpty();
        for (String jar : jars) {
            assertThat(excluded).as("%s is a dependency of the agent, but " + SERVER_ONLY + " leaves it off the agent's class path",
                    jar).noneMatch(p -> p.matcher(jar).matches());
        }
        assertThat(excluded).noneMatch(p -> p.matcher("drover-agent-0.1.0.jar").matches()
                || p.matcher("amqp-client-5.27.1.jar").matches() || p.matcher("picocli-4.7.7.jar").matches());
    }

    /** The shell patterns of the file (one per line, # comments) as regular expressions. */
    static List<Pattern> excludedJars(String file) {
        List<Pattern> patterns = new ArrayList<>();
        for (String glob : file.lines().filter(line -> !line.startsWith("#") && !line.isBlank()).toList()) {
            List<String> parts = new ArrayList<>();
            for (String part : glob.strip().split("\\*", -1)) {
                parts.add(part.isEmpty() ? "" : Pattern.quote(part));
            }
            patterns.add(Pattern.compile(String.join(".*", parts)));
        }
        return patterns;
    }
}
