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
    void theAgentsFlagsAndLeftOutJarsComeFromTheFilesTheLaunchersRead() throws Exception {
        String launcher = Files.readString(LAUNCHER);
        assertThat(launcher).contains("agent_jvm_options \"$here/lib\"", "agent_class_path \"$here/lib\"");
        assertThat(AgentLaunch.JVM_OPTIONS).contains("-Xmx32m", "-XX:+UseSerialGC").allMatch(o -> o.startsWith("-"));
        assertThat(AgentLaunch.SERVER_ONLY_JARS).hasSizeGreaterThan(10)
                .allSatisfy(p -> assertThat(p).as("a pattern of the form PREFIX*").endsWith("*").doesNotContain("?", "[")
                        .satisfies(q -> assertThat(q.indexOf('*')).isEqualTo(q.length() - 1)));
        assertThat(AgentLaunch.serverOnly("sqlite-jdbc-3.54.1.0.jar")).isTrue();
        assertThat(AgentLaunch.serverOnly("drover-agent-0.1.0.jar")).isFalse();
        assertThat(AgentLaunch.serverOnly("sqlite-jdbc-classes")).as("a directory").isFalse();
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
