package io.drover.agent.amqp;

import java.nio.file.Path;
import java.util.List;

/**
 * The AMQP channel of execution plans, as the reference agent is configured: the broker ({@code amqp[s]://user:pass@host:port/vhost}),
 * the input queue plans arrive on, where results and log messages go (exchange and routing key, or each plan's
 * ReplyTo when {@code replyTo} is set), the engine's public key (PEM; plans must then be signed), and the command
 * run after a plan that asked for a reboot (none: the request is logged). Without an engine key every plan is refused
 * unless {@code allowUnsigned}. {@code password}: the broker password when the URL holds none (read from a file);
 * {@code caCert}: the CAs an amqps:// broker is checked against (null: the system's). {@code logRoutingKey}: where
 * {@code api.log*} messages go, on the result exchange (null or blank: they are not sent over AMQP, as the reference
 * agent sends none); never the results' key, since the engine would take a log message for the plan's result.
 */
public record AmqpSettings(String url, String inputQueue, String resultExchange, String resultRoutingKey, boolean replyTo,
                           Path engineKey, boolean allowUnsigned, String password, Path caCert, List<String> rebootCommand,
                           String logRoutingKey) {
    public AmqpSettings {
        resultExchange = resultExchange == null ? "" : resultExchange;
        rebootCommand = rebootCommand == null ? List.of() : List.copyOf(rebootCommand);
        logRoutingKey = logRoutingKey == null || logRoutingKey.isBlank() ? null : logRoutingKey;
        if (logRoutingKey != null && logRoutingKey.equals(resultRoutingKey)) {
            throw new IllegalArgumentException("the log routing key " + logRoutingKey + " is the results' routing key: the engine"
                    + " would take the first log message of a plan for its result; give another key");
        }
    }

    @Override
    public String toString() {
        return "AmqpSettings[" + url.replaceAll("//[^@/]*@", "//") + ", queue " + inputQueue + "]"; // no password
    }
}
