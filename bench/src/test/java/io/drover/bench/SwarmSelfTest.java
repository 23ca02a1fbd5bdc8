package io.drover.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Salt comparison's load generator (bench/swarm, Python) passes its own tests: Salt's wire rules (msgpack, the
 * crypticle, X9.31 against OpenSSL, targeting) and its ZMTP client against libzmq's ROUTER and XPUB, run with the
 * Python that bench/salt-compare.sh runs it with. Its output is in the failure message.
 */
class SwarmSelfTest {
    private static final Path PYTHON = Path.of("/usr/bin/python3");

    @TempDir
    Path dir;

    @Test
    void theSwarmsWireRulesAndZmtpClientPassTheirTests() throws Exception {
        boolean ready = Files.isExecutable(PYTHON) && run(dir.resolve("imports.log"), "-c", "import zmq, msgpack, Cryptodome") == 0;
        if (!ready && System.getenv("CI") != null) {
            throw new IllegalStateException("CI is set but /usr/bin/python3 cannot import zmq, msgpack and Cryptodome "
                    + "(bench/swarm/requirements.sh installs them)");
        }
        Assumptions.assumeTrue(ready, "/usr/bin/python3 with pyzmq, msgpack and pycryptodome is not installed");
        Path log = dir.resolve("unittest.log");
        int exit = run(log, "-m", "unittest", "-v", "test_saltwire", "test_zmtp");
        String output = Files.readString(log);
        assertThat(exit).as(output).isZero();
        Matcher ran = Pattern.compile("Ran (\\d+) tests").matcher(output);
        assertThat(ran.find()).as(output).isTrue();
        assertThat(Integer.parseInt(ran.group(1))).as("tests run").isGreaterThanOrEqualTo(20);
    }

    private static int run(Path log, String... args) throws Exception {
        java.util.List<String> command = new java.util.ArrayList<>(java.util.List.of(PYTHON.toString(), "-W", "ignore"));
        command.addAll(java.util.List.of(args));
        Process process = new ProcessBuilder(command).directory(Path.of("swarm").toAbsolutePath().toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " took over 120 s: " + Files.readString(log));
        }
        return process.exitValue();
    }
}
