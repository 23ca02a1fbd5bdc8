package io.drover.dist;

import io.drover.agent.DroverAgent;
import io.drover.agent.Grains;
import io.drover.server.testing.TestServer;
import io.drover.transport.minion.MinionConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** A real server plus in-process agents on loopback, and the CLI pointed at the server with the admin token. */
final class Fleet implements AutoCloseable {
    final TestServer server;
    final Path roots;
    private final List<DroverAgent> agents = new ArrayList<>();

    Fleet(TestServer server, Path roots) {
        this.server = server;
        this.roots = roots;
    }

    record Run(int exit, String out, String err) {
    }

    /** An agent with short timeouts, a 30 s heartbeat and no enrollment token, reporting its own address. */
    DroverAgent agent(String id) {
        return agent(id, null, null, Duration.ofSeconds(30));
    }

    DroverAgent agent(String id, String innerIp, String enrollToken, Duration heartbeat) {
        return agent(id, innerIp, enrollToken, heartbeat, "test");
    }

    /** An agent that reports {@code version} as its own. */
    DroverAgent agent(String id, String innerIp, String enrollToken, Duration heartbeat, String version) {
        var master = server.server().master();
        MinionConfig config = MinionConfig.of(id, "127.0.0.1", master.publishPort(), master.requestPort())
                .withTimeouts(Duration.ofSeconds(3), Duration.ofMillis(300), Duration.ofMillis(200))
                .withEnrollToken(enrollToken);
        DroverAgent agent = DroverAgent.start(config, roots.resolve(id), version, new Grains.Placement(innerIp, 0), heartbeat);
        agents.add(agent);
        return agent;
    }

    /** The agents started so far, in start order. */
    List<DroverAgent> agents() {
        return agents;
    }

    /** Runs the CLI in this process against the server. */
    Run drover(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        String[] full = new String[args.length + 4];
        System.arraycopy(args, 0, full, 0, args.length);
        full[args.length] = "--server";
        full[args.length + 1] = server.url();
        full[args.length + 2] = "--token";
        full[args.length + 3] = server.adminToken();
        int exit = io.drover.cli.DroverCommand.commandLine().setOut(new PrintWriter(out, true))
                .setErr(new PrintWriter(err, true)).execute(full);
        return new Run(exit, out.toString(), err.toString());
    }

    @Override
    public void close() {
        agents.forEach(DroverAgent::close);
        SimulatedHosts.stopProcessesUnder(roots);
        server.close();
    }
}
