package io.drover.agent.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.drover.model.plans.PlanJson;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The engine side of Murano's agent link, written from its rules (murano/engine/system/agent.py and
 * agent_listener.py), not its code: a plan is sent with the message id {@code plan['ID']} after a subscription for
 * that id is made; the listener acks every message on the results queue and completes the waiting subscription of
 * {@code body.get('SourceID', message id)} with the FIRST such message (a later one for the same id finds no
 * subscription and is dropped); the result is read as {@code _process_v2_result} (a missing ErrorCode is 0) or, when
 * its FormatVersion is absent or 1.x, {@code _process_v1_result} ({@code Result} a list, the last entry taken).
 */
final class MuranoEngine implements AutoCloseable {
    /** What the engine's {@code call} gives the application: a value, or the AgentException's dictionary. */
    record Outcome(Object value, Map<String, Object> error) {
        boolean failed() {
            return error != null;
        }
    }

    private final Connection connection;
    private final Channel channel;
    private final String planQueue;
    private final Map<String, CompletableFuture<Map<?, ?>>> subscriptions = new ConcurrentHashMap<>();
    /** Messages on the results queue that completed nothing: a result sent twice, or a stray message. */
    final List<Map<?, ?>> dropped = new CopyOnWriteArrayList<>();

    MuranoEngine(String url, String planQueue, String resultsQueue) throws Exception {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(url);
        this.connection = factory.newConnection("murano-engine-emulation");
        this.channel = connection.createChannel();
        this.planQueue = planQueue;
        Channel listener = connection.createChannel();
        listener.basicConsume(resultsQueue, false, (tag, delivery) -> {
            listener.basicAck(delivery.getEnvelope().getDeliveryTag(), false);
            Map<?, ?> body = (Map<?, ?>) PlanJson.read(delivery.getBody());
            Object id = body.containsKey("SourceID") ? body.get("SourceID") : delivery.getProperties().getMessageId();
            CompletableFuture<Map<?, ?>> waiting = subscriptions.remove(String.valueOf(id));
            if (waiting == null) {
                dropped.add(body);
            } else {
                waiting.complete(body);
            }
        }, tag -> { });
    }

    /** Agent.call: subscribes for the plan's ID (a vCurrent plan has none: a fresh one), then sends the plan. */
    CompletableFuture<Outcome> call(Map<String, Object> plan) throws IOException {
        String id = plan.get("ID") instanceof String given ? given : java.util.UUID.randomUUID().toString().replace("-", "");
        CompletableFuture<Map<?, ?>> result = new CompletableFuture<>();
        subscriptions.put(id, result);
        channel.basicPublish("", planQueue, new AMQP.BasicProperties.Builder().messageId(id).deliveryMode(2).build(),
                PlanJson.bytes(plan));
        return result.thenApply(MuranoEngine::process);
    }

    static Outcome process(Map<?, ?> result) {
        Object version = result.containsKey("FormatVersion") ? result.get("FormatVersion") : "1.0.0";
        return String.valueOf(version).startsWith("1.") ? processV1(result) : processV2(result);
    }

    private static Outcome processV2(Map<?, ?> result) {
        Object code = result.containsKey("ErrorCode") ? result.get("ErrorCode") : 0;
        if (code == null || code.equals(0)) {
            return new Outcome(result.get("Body"), null);
        }
        Map<?, ?> body = result.get("Body") instanceof Map<?, ?> map ? map : Map.of();
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("message", body.get("Message"));
        error.put("details", body.get("AdditionalInfo"));
        error.put("errorCode", code);
        error.put("time", result.get("Time"));
        return new Outcome(null, error);
    }

    private static Outcome processV1(Map<?, ?> result) {
        if (Boolean.TRUE.equals(result.get("IsException"))) {
            return new Outcome(null, exceptionInfo(result.get("Result"), "execution_plan"));
        }
        if (!(result.get("Result") instanceof List<?> results) || results.isEmpty()) {
            throw new AssertionError("the engine would crash on results[-1]: Result is " + result.get("Result"));
        }
        Map<?, ?> value = (Map<?, ?>) results.getLast();
        if (Boolean.TRUE.equals(value.get("IsException"))) {
            return new Outcome(null, exceptionInfo(value.get("Result"), "command"));
        }
        return new Outcome(value.get("Result"), null);
    }

    private static Map<String, Object> exceptionInfo(Object data, String source) {
        if (data != null && !(data instanceof List<?>)) {
            throw new AssertionError("the engine's _get_exception_info indexes a list, not " + data);
        }
        List<?> list = data == null ? List.of() : (List<?>) data;
        Map<String, Object> info = new LinkedHashMap<>();
        info.put("type", list.size() > 0 ? list.get(0) : null);
        info.put("message", list.size() > 1 ? list.get(1) : null);
        info.put("command", list.size() > 2 ? list.get(2) : null);
        info.put("details", list.size() > 3 ? list.get(3) : null);
        info.put("source", source);
        return info;
    }

    @Override
    public void close() throws Exception {
        connection.close();
    }
}
