package io.drover.dist;

import io.drover.agent.DroverAgent;
import io.drover.server.Version;
import io.drover.transport.minion.MinionConfig;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code drover agent}: one per host; signs in to the server and runs the jobs that target it. */
@Command(name = "agent", mixinStandardHelpOptions = true, description = "Run the agent of this host.")
final class AgentCommand implements Callable<Integer> {
    @Option(names = "--master", required = true, paramLabel = "HOST[:PORT]",
            description = "The server's agent transport: host and request port (default port 4506).")
    String master;

    @Option(names = "--id", required = true, description = "This agent's id (letters, digits, '.', '_', '@', '-').")
    String id;

    @Option(names = "--root", paramLabel = "DIR", description = "Root of the host's files (default /); state lives in <root>/var/lib/drover-agent.")
    Path root = Path.of("/");

    @Option(names = "--publish-port", description = "The server's publish port until the server names it (default 4505).")
    int publishPort = 4505;

    @Override
    public Integer call() throws InterruptedException {
        if (!io.drover.transport.protocol.Messages.validId(id)) {
            System.err.println("error: '" + id + "' is not a valid agent id");
            return 2;
        }
        String host = master;
        int requestPort = 4506;
        int colon = master.lastIndexOf(':');
        if (colon > 0) {
            host = master.substring(0, colon);
            try {
                requestPort = Integer.parseInt(master.substring(colon + 1));
            } catch (NumberFormatException e) {
                System.err.println("error: --master port '" + master.substring(colon + 1) + "' is not a number");
                return 2;
            }
        }
        DroverAgent agent = DroverAgent.start(MinionConfig.of(id, host, publishPort, requestPort), root, Version.current());
        System.out.println("drover agent " + id + " connecting to " + host + ":" + requestPort);
        return ServerCommand.runUntilStopped(agent);
    }
}
