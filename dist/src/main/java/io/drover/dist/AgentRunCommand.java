package io.drover.dist;

import io.drover.agent.OptionText;
import io.drover.agent.DroverAgent;
import io.drover.agent.Grains;
import io.drover.agent.install.AgentHome;
import io.drover.server.BuildVersion;
import io.drover.transport.minion.MinionConfig;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * {@code drover agent}: one per host; signs in to the server and runs the jobs that target it (or, with
 * {@code --amqp-url} and no {@code --master}, only takes execution plans over AMQP). Its options are read
 * by {@link AgentOptions} (no picocli on this path: an idle agent keeps every class it loaded); {@code drover agent
 * list|show|grains} are operator commands of the CLI.
 */
final class AgentRunCommand {
    private AgentRunCommand() {
    }

    /** {@code drover agent ARGS} with ARGS from {@code args[from]}: 0 after a stop or help, 2 for a bad command line. */
    static int run(String[] args, int from) throws InterruptedException {
        AgentOptions o;
        try {
            o = AgentOptions.parse(args, from, System.getenv());
        } catch (OptionText.Invalid e) {
            System.err.println("error: " + e.getMessage());
            return 2;
        }
        if (o.help) {
            System.out.print(AgentOptions.usage());
            return 0;
        }
        if (o.version) {
            System.out.println("drover agent " + AgentHome.version(AgentHome.fromSystem(), BuildVersion.current()));
            return 0;
        }
        io.drover.agent.amqp.AmqpSettings amqp = o.amqpUrl == null ? null : new io.drover.agent.amqp.AmqpSettings(o.amqpUrl,
                o.amqpQueue, o.amqpResultExchange, o.amqpResultRoutingKey, o.amqpReplyTo, o.amqpEngineKey, o.amqpAllowUnsigned,
                o.amqpPassword, o.amqpCaCert, o.amqpRebootCommand, o.amqpLogRoutingKey);
        String version = AgentHome.version(AgentHome.fromSystem(), BuildVersion.current());
        if (o.masters == null) {
            DroverAgent agent;
            try {
                agent = DroverAgent.startAmqpOnly(o.id, o.root, version, new Grains.Placement(o.innerIp, o.cloudId), amqp);
            } catch (RuntimeException e) {
                e.printStackTrace();
                return 1;
            }
            System.out.println("drover agent " + o.id + " taking execution plans over AMQP only from " + o.amqpQueue);
            return runUntilStopped(agent);
        }
        MinionConfig config = minionConfig(o);
        DroverAgent agent;
        try {
            agent = DroverAgent.start(config, o.root, version, new Grains.Placement(o.innerIp, o.cloudId),
                    Duration.ofSeconds(o.heartbeatSeconds), amqp);
        } catch (RuntimeException e) {
            e.printStackTrace();
            return 1;
        }
        List<MinionConfig.Master> masters = o.masters;
        System.out.println("drover agent " + o.id + " connecting to " + (masters.size() == 1 ? masters.getFirst()
                : masters.getFirst() + " (then " + masters.subList(1, masters.size()) + ")"));
        return runUntilStopped(agent);
    }

    /** The minion configuration an agent runs with: Salt's timeouts and retries, the masters and options given. */
    static MinionConfig minionConfig(AgentOptions o) {
        return MinionConfig.of(o.id, "localhost", o.publishPort, 4506).withMasters(o.masters)
                .withEnrollToken(o.enrollToken).withFailback(o.failbackSeconds == 0 ? null : Duration.ofSeconds(o.failbackSeconds))
                .withMasterFinger(o.masterFinger);
    }

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
                boolean digits = !port.isEmpty() && port.length() <= 9;
                for (int i = 0; digits && i < port.length(); i++) {
                    digits = port.charAt(i) >= '0' && port.charAt(i) <= '9';
                }
                if (!digits) {
                    throw new IllegalArgumentException("port " + AgentOptions.show(port) + " is not a number");
                }
                requestPort = Integer.parseInt(port);
                if (requestPort < 1 || requestPort > 65535) {
                    throw new IllegalArgumentException("port " + requestPort + " is not between 1 and 65535");
                }
            }
            if (host.isEmpty() || !host.matches("[A-Za-z0-9.:\\[\\]_-]{1,253}")) {
                throw new IllegalArgumentException(AgentOptions.show(entry) + " is not HOST or HOST:PORT");
            }
            masters.add(new MinionConfig.Master(host, publishPort, requestPort));
        }
        if (masters.size() > 16) {
            throw new IllegalArgumentException("names " + masters.size() + " servers; at most 16");
        }
        return masters;
    }

    /** Blocks until the JVM is asked to stop (Ctrl-C, SIGTERM), then closes the agent. */
    private static int runUntilStopped(DroverAgent agent) throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(new Stopper(agent, stopped), "drover-shutdown"));
        stopped.await();
        return 0;
    }

    private static final class Stopper implements Runnable {
        private final DroverAgent agent;
        private final CountDownLatch stopped;

        Stopper(DroverAgent agent, CountDownLatch stopped) {
            this.agent = agent;
            this.stopped = stopped;
        }

        @Override
        public void run() {
            try {
                agent.close();
            } catch (Exception e) {
                System.err.println("error while stopping: " + e.getMessage());
            } finally {
                stopped.countDown();
            }
        }
    }
}
