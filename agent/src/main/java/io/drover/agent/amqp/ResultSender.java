package io.drover.agent.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the outbox, oldest first and one message at a time: each is published {@code mandatory} and leaves the
 * outbox only once the broker confirmed it and did not return it. A nack or a confirm timeout closes the channel
 * (amqp-client does so), and the next message opens a new one; a message the broker returned (no queue bound to its
 * key) stays in the outbox, as do the ones after it so that they keep their order, and is tried again; a returned log
 * message is dropped instead (with a warning), so that a log key no queue takes never holds results back. A message
 * published but never confirmed is sent again: the engine may see a result twice, never zero times.
 */
final class ResultSender {
    private static final Logger log = LoggerFactory.getLogger(ResultSender.class);

    /** Waits for the broker to confirm what the channel published; the seam a test uses to make a confirm time out. */
    interface Confirms {
        void await(Channel channel) throws IOException, InterruptedException, TimeoutException;
    }

    static final Confirms WAIT_10_SECONDS = channel -> channel.waitForConfirmsOrDie(10_000);

    private final Confirms confirms;
    /** Where log messages go (null: none are sent); nothing else is sent there. */
    private final String logRoutingKey;
    private Channel channel;
    /** Set by the broker's basic.return, which RabbitMQ sends before the confirm of the same message. */
    private volatile boolean returned;
    /** The outbox file last reported as returned, so that a message retried every second is reported once. */
    private String reportedUnroutable;

    ResultSender(Confirms confirms, String logRoutingKey) {
        this.confirms = confirms;
        this.logRoutingKey = logRoutingKey;
    }

    /** Sends the messages in order; false when one was not sent (it and the ones after it stay in the outbox). */
    boolean send(Connection connection, PlanQueue queue, List<PlanQueue.Outgoing> messages) throws InterruptedException {
        for (PlanQueue.Outgoing message : messages) {
            if (!send(connection, queue, message)) {
                return false;
            }
        }
        return true;
    }

    private boolean send(Connection connection, PlanQueue queue, PlanQueue.Outgoing message) throws InterruptedException {
        String name = message.file().getFileName().toString();
        try {
            Channel out = open(connection);
            returned = false;
            AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder().messageId(message.messageId())
                    .contentType("application/json").deliveryMode(2).build();
            out.basicPublish(message.exchange(), message.routingKey(), true, properties, message.body());
            confirms.await(out);
        } catch (IOException | TimeoutException | ShutdownSignalException e) {
            log.warn("execution plans: the broker did not confirm message {} ({}); it stays queued and is sent again on a new channel",
                    message.messageId(), e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
            closeChannel();
            return false;
        }
        if (returned && message.routingKey().equals(logRoutingKey)) {
            if (!logRoutingKey.equals(reportedUnroutable)) {
                reportedUnroutable = logRoutingKey;
                log.warn("execution plans: the broker returned a log message: no queue is bound to exchange '{}' with key '{}';"
                        + " log messages are dropped until one is", message.exchange(), logRoutingKey);
            }
            queue.sent(message);
            return true;
        }
        if (returned) {
            if (!name.equals(reportedUnroutable)) {
                reportedUnroutable = name;
                log.warn("execution plans: the broker returned message {}: no queue is bound to exchange '{}' with key '{}';"
                        + " it stays queued and is tried again", message.messageId(), message.exchange(), message.routingKey());
            }
            return false;
        }
        if (name.equals(reportedUnroutable)) {
            reportedUnroutable = null;
            log.info("execution plans: message {} was routed to '{}' at last", message.messageId(), message.routingKey());
        }
        queue.sent(message);
        return true;
    }

    private Channel open(Connection connection) throws IOException {
        if (channel != null && channel.isOpen() && channel.getConnection() == connection) {
            return channel;
        }
        boolean reopening = channel != null && channel.getConnection() == connection;
        Channel opened = connection.createChannel();
        opened.confirmSelect();
        opened.addReturnListener(r -> returned = true);
        channel = opened;
        if (reopening) {
            log.info("execution plans: opened a new channel for results on {}", connection.getAddress());
        }
        return opened;
    }

    private void closeChannel() {
        Channel old = channel;
        if (old != null && old.isOpen()) {
            try {
                old.abort();
            } catch (IOException | RuntimeException e) {
                // closing a channel that failed; nothing more to do
            }
        }
    }
}
