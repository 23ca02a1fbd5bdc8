package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The quickstart's agents start like {@code bin/drover agent}: the same JVM flags, the same jars left out. */
class LocalAgentsTest {
    private static final Path LAUNCHER = Path.of("src/dist/bin/drover");

    @Test
    void sameFlagsAsTheLauncher() throws Exception {
        Matcher m = Pattern.compile("\\n\\s*agent\\) opts=\"([^\"]*)\"").matcher(Files.readString(LAUNCHER));
        assertThat(m.find()).as("the agent branch of " + LAUNCHER).isTrue();
        assertThat(LocalAgents.AGENT_JVM_FLAGS).containsExactly(m.group(1).strip().split("\\s+"));
    }

    @Test
    void sameJarsLeftOutAsTheLauncher() throws Exception {
        Matcher m = Pattern.compile("case \"\\$\\{jar##\\*/}\" in\\s+(.*?)\\) ;;", Pattern.DOTALL).matcher(Files.readString(LAUNCHER));
        assertThat(m.find()).as("the agent's jar filter in " + LAUNCHER).isTrue();
        List<String> prefixes = new ArrayList<>();
        for (String glob : m.group(1).replace("\\\n", "").split("\\|")) {
            assertThat(glob.strip()).as("a launcher pattern of the form PREFIX*").endsWith("*").doesNotContain("?", "[");
            prefixes.add(glob.strip().substring(0, glob.strip().length() - 1));
        }
        assertThat(LocalAgents.SERVER_ONLY_JARS).containsExactlyInAnyOrderElementsOf(prefixes);
    }

    @Test
    void agentClassPathLeavesOutTheServersJarsOnly() {
        String sep = File.pathSeparator;
        String cp = String.join(sep, "/d/lib/drover-agent-0.1.0.jar", "/d/lib/sqlite-jdbc-3.54.1.0.jar", "/m2/org/eclipse/jgit/org.eclipse.jgit-7.8.1.jar",
                "/w/agent/target/classes", "/d/lib/picocli-4.7.7.jar", "/d/lib/jetty-server-12.1.12.jar", "/d/lib/asm-9.10.1.jar",
                "/d/lib/annotations-13.0.jar", "/d/lib/annotations-3.0.1.jar", "/d/lib/amqp-client-5.27.1.jar", "/w/h2-dir");
        assertThat(LocalAgents.agentClassPath(cp).split(sep)).containsExactly("/d/lib/drover-agent-0.1.0.jar", "/w/agent/target/classes",
                "/d/lib/picocli-4.7.7.jar", "/d/lib/annotations-3.0.1.jar", "/d/lib/amqp-client-5.27.1.jar", "/w/h2-dir");
    }
}
