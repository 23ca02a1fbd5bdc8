package io.drover.dist;

import io.drover.agent.DroverAgent;
import io.drover.agent.Grains;
import io.drover.server.BuildVersion;
import io.drover.transport.minion.MinionConfig;
import java.nio.file.Path;
import java.util.List;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code drover agent}: one per host; signs in to the server and runs the jobs that target it. */
@Command(name = "drover agent", mixinStandardHelpOptions = true, description = {"Run the agent of this host.",
        "(drover agent list|show|grains ask the server about agents.)"})
final class AgentRunCommand implements Callable<Integer> {
    @Option(names = "--master", required = true, paramLabel = "HOST[:PORT][,HOST[:PORT]...]",
            description = {"The server's agent transport: host and request port (default port 4506).",
                    "Several servers of a cluster, in order of preference: the agent uses the first that answers and "
                            + "moves to the next, after a random pause, when the one it uses stops answering."})
    String master;

    @Option(names = "--id", required = true, description = "This agent's id (letters, digits, '.', '_', '@', '-').")
    String id;

    @Option(names = "--root", paramLabel = "DIR", description = "Root of the host's files (default /); state lives in <root>/var/lib/drover-agent.")
    Path root = Path.of("/");

    @Option(names = "--publish-port", description = "The server's publish port until the server names it (default 4505).")
    int publishPort = 4505;

    @Option(names = "--ip", paramLabel = "ADDR", description = "This host's inner IP in the inventory (default: its first non-loopback IPv4 address).")
    String innerIp;

    @Option(names = "--cloud-id", description = "This host's cloud area in the inventory (default 0).")
    long cloudId;

    @Option(names = "--enroll-token", paramLabel = "TOKEN", defaultValue = "${env:DROVER_ENROLL_TOKEN}",
            description = "Enrollment token: the server accepts this agent and places its host in the token's business (default: $DROVER_ENROLL_TOKEN).")
    String enrollToken;

    @Option(names = "--heartbeat", paramLabel = "SECONDS", description = "Seconds between heartbeats (default 30); the server marks the agent lost after three missed ones.")
    int heartbeatSeconds = 30;

    @Option(names = "--amqp-url", paramLabel = "URL", description = "Take execution plans from RabbitMQ too: amqp[s]://user:password@host:port/vhost.")
    String amqpUrl;

    @Option(names = "--amqp-queue", paramLabel = "QUEUE", description = "The queue plans arrive on (with --amqp-url; default: drover-<id>).")
    String amqpQueue;

    @Option(names = "--amqp-result-exchange", paramLabel = "EXCHANGE", description = "Exchange for results and log messages (default: the default exchange).")
    String amqpResultExchange = "";

    @Option(names = "--amqp-result-routing-key", paramLabel = "KEY", description = "Routing key (queue) for results and log messages (default: drover-results).")
    String amqpResultRoutingKey = "drover-results";

    @Option(names = "--amqp-reply-to", description = "Send each result to the ReplyTo the plan's message names, when it names one.")
    boolean amqpReplyTo;

    @Option(names = "--amqp-engine-key", paramLabel = "PEM", description = "The engine's RSA public key: plans must be signed with it (SHA256withRSA over queue name + body, header 'signature').")
    Path amqpEngineKey;

    @Option(names = "--amqp-reboot-command", paramLabel = "CMD", split = " ", description = "Command run after a plan that called api.reboot() (default: none, the request is logged).")
    java.util.List<String> amqpRebootCommand;

    /** {@code host[:port]} entries separated by commas; each server's publish port until it names its own. */
    static List<MinionConfig.Master> masters(String text, int publishPort) {
        List<MinionConfig.Master> masters = new java.util.ArrayList<>();
        for (String entry : text.split(",", -1)) {
            String host = entry.strip();
            int requestPort = 4506;
            int colon = host.lastIndexOf(':');
            if (colon > 0) {
                String port = host.substring(colon + 1);
                host = host.substring(0, colon);
                try {
                    requestPort = Integer.parseInt(port);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("port '" + port + "' is not a number");
                }
                if (requestPort < 1 || requestPort > 65535) {
                    throw new IllegalArgumentException("port " + requestPort + " is not between 1 and 65535");
                }
            }
            if (host.isEmpty() || !host.matches("[A-Za-z0-9.:\\[\\]_-]{1,253}")) {
                throw new IllegalArgumentException("'" + entry + "' is not HOST or HOST:PORT");
            }
            masters.add(new MinionConfig.Master(host, publishPort, requestPort));
        }
        if (masters.size() > 16) {
            throw new IllegalArgumentException("names " + masters.size() + " servers; at most 16");
        }
        return masters;
    }

    @Override
    public Integer call() throws InterruptedException {
        if (!io.drover.transport.protocol.Messages.validId(id)) {
            System.err.println("error: '" + id + "' is not a valid agent id");
            return 2;
        }
        List<MinionConfig.Master> masters;
        try {
            masters = masters(master, publishPort);
        } catch (IllegalArgumentException e) {
            System.err.println("error: --master " + e.getMessage());
            return 2;
        }
        if (heartbeatSeconds < 1 || heartbeatSeconds > 3600) {
            System.err.println("error: --heartbeat must be 1 to 3600 seconds");
            return 2;
        }
        MinionConfig config = MinionConfig.of(id, "localhost", publishPort, 4506).withMasters(masters).withEnrollToken(
                enrollToken == null || enrollToken.isBlank() ? null : enrollToken.strip());
        io.drover.agent.amqp.AmqpSettings amqp = null;
        if (amqpUrl != null) {
            if (!amqpUrl.matches("amqps?://.+")) {
                System.err.println("error: --amqp-url must start with amqp:// or amqps://");
                return 2;
            }
            if (amqpEngineKey != null && !java.nio.file.Files.isReadable(amqpEngineKey)) {
                System.err.println("error: --amqp-engine-key " + amqpEngineKey + " cannot be read");
                return 2;
            }
            amqp = new io.drover.agent.amqp.AmqpSettings(amqpUrl, amqpQueue == null ? "drover-" + id : amqpQueue,
                    amqpResultExchange, amqpResultRoutingKey, amqpReplyTo, amqpEngineKey, amqpRebootCommand);
        }
        DroverAgent agent = DroverAgent.start(config, root, BuildVersion.current(), new Grains.Placement(innerIp, cloudId),
                Duration.ofSeconds(heartbeatSeconds), amqp);
        System.out.println("drover agent " + id + " connecting to " + (masters.size() == 1 ? masters.getFirst()
                : masters.getFirst() + " (then " + masters.subList(1, masters.size()) + ")"));
        return ServerCommand.runUntilStopped(agent);
    }
}
