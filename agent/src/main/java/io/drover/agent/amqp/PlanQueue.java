package io.drover.agent.amqp;

import io.drover.agent.disk.DurableFiles;
import io.drover.core.Hashing;
import io.drover.core.plans.PlanRestarts;
import io.drover.model.plans.PlanJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The agent's durable record of plans that came over AMQP, under {@code <state>/plans/amqp}:
 * <ul>
 * <li>{@code inbox/<seq>/plan.json}: a received plan, written (and forced to disk) before the broker is acknowledged,
 * as the reference agent stores it ({@code Data}, {@code Signature}, {@code ID}, {@code ReplyTo});
 * {@code running} beside it once it started, {@code restarts} with its {@link PlanRestarts} once it waited for a
 * reboot or was restarted;</li>
 * <li>{@code outbox/<seq>.json}: a result or log message to send, written before its plan is removed from the inbox
 * and deleted once the broker confirmed it;</li>
 * <li>{@code stamp}: the newest Stamp run; {@code seen/}: the IDs of plans run (the newest ten thousand).</li>
 * </ul>
 * Every file is written to a temporary name, forced and renamed, so {@code kill -9} leaves the old state or the new.
 */
final class PlanQueue {
    private static final int KEEP_SEEN = 10_000;

    /** A received plan. */
    record Entry(Path dir, String messageId, String replyTo, byte[] data, byte[] signature) {
        boolean running() {
            return Files.exists(dir.resolve("running"));
        }

        /** What the plan's earlier runs left: a reboot it waits for, restarts it had. */
        PlanRestarts restarts() {
            try {
                Path file = dir.resolve("restarts");
                return Files.exists(file) ? PlanRestarts.fromMap(PlanJson.read(Files.readAllBytes(file))) : PlanRestarts.STARTED;
            } catch (IOException e) {
                return PlanRestarts.STARTED;
            }
        }
    }

    /** A message waiting to be sent. */
    record Outgoing(Path file, String exchange, String routingKey, String messageId, byte[] body) {
    }

    private final Path inbox;
    private final Path outbox;
    private final Path seen;
    private final Path stamp;
    private long sequence;

    PlanQueue(Path stateDir) {
        Path root = stateDir.resolve("plans/amqp");
        this.inbox = root.resolve("inbox");
        this.outbox = root.resolve("outbox");
        this.seen = root.resolve("seen");
        this.stamp = root.resolve("stamp");
        try {
            Files.createDirectories(inbox);
            Files.createDirectories(outbox);
            Files.createDirectories(seen);
            try (Stream<Path> in = Files.list(inbox); Stream<Path> out = Files.list(outbox)) {
                sequence = Stream.concat(in, out).map(p -> p.getFileName().toString().replaceAll("\\D.*$", ""))
                        .filter(s -> !s.isEmpty()).mapToLong(Long::parseLong).max().orElse(0);
            }
            try (Stream<Path> partial = Files.list(inbox)) {
                for (Path dir : partial.filter(p -> p.getFileName().toString().endsWith(".tmp")).toList()) {
                    DurableFiles.deleteTree(dir);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the plan queue under " + root, e);
        }
    }

    /** Stores a received plan; once this returns, the broker may be acknowledged. */
    synchronized void accept(String messageId, String replyTo, byte[] data, byte[] signature) {
        String name = String.format("%020d", ++sequence);
        Path temp = inbox.resolve(name + ".tmp");
        Map<String, Object> stored = new LinkedHashMap<>();
        stored.put("Data", Base64.getEncoder().encodeToString(data));
        stored.put("Signature", signature == null ? "" : Base64.getEncoder().encodeToString(signature));
        stored.put("ID", messageId);
        stored.put("ReplyTo", replyTo);
        try {
            Files.createDirectories(temp);
            DurableFiles.write(temp.resolve("plan.json"), PlanJson.bytes(stored));
            Files.move(temp, inbox.resolve(name), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot store a received plan in " + inbox, e);
        }
    }

    /** The oldest plan not yet finished, or empty. */
    synchronized Optional<Entry> next() {
        try (Stream<Path> dirs = Files.list(inbox)) {
            Optional<Path> oldest = dirs.filter(p -> !p.getFileName().toString().endsWith(".tmp")).sorted().findFirst();
            if (oldest.isEmpty()) {
                return Optional.empty();
            }
            Map<?, ?> stored = (Map<?, ?>) PlanJson.read(Files.readAllBytes(oldest.get().resolve("plan.json")));
            String signature = (String) stored.get("Signature");
            return Optional.of(new Entry(oldest.get(), (String) stored.get("ID"), (String) stored.get("ReplyTo"),
                    Base64.getDecoder().decode((String) stored.get("Data")),
                    signature == null || signature.isEmpty() ? null : Base64.getDecoder().decode(signature)));
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("cannot read the plan queue " + inbox + ": " + e.getMessage(), e);
        }
    }

    void markRunning(Entry entry) {
        DurableFiles.write(entry.dir().resolve("running"), new byte[0]);
    }

    void markRestarts(Entry entry, PlanRestarts restarts) {
        DurableFiles.write(entry.dir().resolve("restarts"), PlanJson.bytes(restarts.toMap()));
    }

    /** Queues a message to send (a log message while its plan runs). */
    synchronized void send(String exchange, String routingKey, String messageId, Map<String, Object> body) {
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("exchange", exchange);
        message.put("routing_key", routingKey);
        message.put("message_id", messageId);
        message.put("body", body);
        DurableFiles.write(outbox.resolve(String.format("%020d", ++sequence) + ".json"), PlanJson.bytes(message));
    }

    /** The plan's result is queued to send, then the plan leaves the inbox. */
    synchronized void finish(Entry entry, String exchange, String routingKey, String messageId, Map<String, Object> result) {
        send(exchange, routingKey, messageId, result);
        drop(entry);
    }

    /** Forgets a plan without a result (a duplicate). */
    synchronized void drop(Entry entry) {
        try {
            DurableFiles.deleteTree(entry.dir());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Messages to send, oldest first. */
    synchronized List<Outgoing> outgoing() {
        List<Outgoing> messages = new ArrayList<>();
        try (Stream<Path> files = Files.list(outbox)) {
            for (Path file : files.filter(p -> p.getFileName().toString().endsWith(".json")).sorted().toList()) {
                Map<?, ?> message = (Map<?, ?>) PlanJson.read(Files.readAllBytes(file));
                messages.add(new Outgoing(file, (String) message.get("exchange"), (String) message.get("routing_key"),
                        (String) message.get("message_id"), PlanJson.write(message.get("body")).getBytes(StandardCharsets.UTF_8)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return messages;
    }

    void sent(Outgoing message) {
        try {
            Files.deleteIfExists(message.file());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The newest Stamp run, or "none". */
    synchronized String lastStamp() {
        try {
            return Files.exists(stamp) ? Files.readString(stamp).strip() : "none";
        } catch (IOException e) {
            return "unreadable";
        }
    }

    /** False when a plan with this Stamp must be refused (not newer than the last one run); otherwise records it. */
    synchronized boolean newStamp(long value) {
        try {
            long last = Files.exists(stamp) ? Long.parseLong(Files.readString(stamp).strip()) : Long.MIN_VALUE;
            if (value <= last) {
                return false;
            }
        } catch (IOException | NumberFormatException e) {
            // an unreadable stamp is no stamp
        }
        DurableFiles.write(stamp, Long.toString(value).getBytes(StandardCharsets.UTF_8));
        return true;
    }

    /** False when a plan with this ID ran before; otherwise records it. */
    synchronized boolean firstTime(String id) {
        Path marker = seen.resolve(Hashing.sha256(id));
        if (Files.exists(marker)) {
            return false;
        }
        DurableFiles.write(marker, new byte[0]);
        try (Stream<Path> all = Files.list(seen)) {
            List<Path> markers = all.toList();
            if (markers.size() > KEEP_SEEN) {
                List<Path> oldest = markers.stream().sorted(java.util.Comparator.comparing(PlanQueue::modified))
                        .limit(markers.size() - KEEP_SEEN).toList();
                for (Path old : oldest) {
                    Files.deleteIfExists(old);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return true;
    }

    private static long modified(Path file) {
        try {
            return Files.getLastModifiedTime(file).toMillis();
        } catch (IOException e) {
            return 0;
        }
    }
}
