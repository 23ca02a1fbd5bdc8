package io.drover.agent.install;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.model.Json;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.Set;

/**
 * Waits for an agent that was just (re)started to sign in, reading the {@code sign-in.json} it writes (see
 * {@link io.drover.agent.SignInFile}), and says in one line why it did not.
 */
final class SignInWait {
    /** States after which waiting longer does not help: the operator has to act. */
    private static final Set<String> FINAL = Set.of("KEY_REJECTED", "FINGERPRINT_MISMATCH", "MASTER_KEY_CHANGED");
    private static final Duration POLL = Duration.ofMillis(200);
    /** How long the agent must be seen not running before the wait says it stopped. */
    private static final Duration STOPPED_FOR = Duration.ofSeconds(1);

    /** What {@code sign-in.json} says. */
    record SignIn(String state, String master, String detail, Instant time, String version) {
        String line() {
            return state + " (" + InstallOptions.show(master) + ", " + time + ": " + InstallOptions.show(detail) + ")";
        }
    }

    /** How the wait ended: signed in, or the one-line reason it did not. */
    record Outcome(boolean signedIn, String line) {
    }

    private SignInWait() {
    }

    /** The file's content, or empty when it is missing, too large or unreadable. */
    static Optional<SignIn> read(Path file) {
        try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
            byte[] bytes = in.readNBytes(64 * 1024 + 1);
            if (bytes.length > 64 * 1024) {
                return Optional.empty();
            }
            JsonNode node = Json.json().readTree(new String(bytes, StandardCharsets.UTF_8));
            if (node == null || !node.isObject() || !node.path("state").isTextual()) {
                return Optional.empty();
            }
            return Optional.of(new SignIn(node.path("state").asText(), node.path("master").asText(""),
                    node.path("detail").asText(""), Instant.parse(node.path("time").asText("")), node.path("version").asText("")));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * Waits up to {@code max} for the agent started at {@code since} (the file it wrote since) to report SIGNED_IN;
     * stops early when it reports a state only an operator can change, or when it no longer runs.
     */
    static Outcome await(Layout layout, AgentService service, Instant since, Duration max, Host host, String id) {
        Instant deadline = host.clock().instant().plus(max);
        Instant notBefore = since.truncatedTo(ChronoUnit.MILLIS);
        Optional<SignIn> last = Optional.empty();
        Instant notRunningSince = null;
        while (true) {
            Optional<SignIn> now = read(layout.signIn()).filter(s -> !s.time().isBefore(notBefore));
            if (now.isPresent()) {
                last = now;
                if (now.get().state().equals("SIGNED_IN")) {
                    return new Outcome(true, "signed in to " + InstallOptions.show(now.get().master()));
                }
                if (FINAL.contains(now.get().state())) {
                    return new Outcome(false, reason(last, max, layout, id) + "; log: " + service.log());
                }
            }
            if (service.running()) {
                notRunningSince = null;
            } else if (notRunningSince == null) {
                // Seen once, it may be a process just started, between its fork and its exec: look again.
                notRunningSince = host.clock().instant();
            } else if (!host.clock().instant().isBefore(notRunningSince.plus(STOPPED_FOR))) {
                return new Outcome(false, "the agent stopped" + lastLogLine(service, layout)
                        + (last.isPresent() ? " (its last sign-in: " + reason(last, max, layout, id) + ")" : "")
                        + "; log: " + service.log());
            }
            if (!host.clock().instant().isBefore(deadline)) {
                return new Outcome(false, reason(last, max, layout, id) + "; log: " + service.log());
            }
            try {
                Thread.sleep(POLL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new Outcome(false, "interrupted while waiting for the agent to sign in");
            }
        }
    }

    /** Why the agent is not signed in, for a person. */
    static String reason(Optional<SignIn> last, Duration waited, Layout layout, String id) {
        if (last.isEmpty()) {
            return "the agent reported no sign-in within " + waited.toSeconds() + " s";
        }
        SignIn s = last.get();
        String server = "the server " + InstallOptions.show(s.master());
        return switch (s.state()) {
            case "UNREACHABLE" -> server + " does not answer the agent's sign-in: check --master, that the server runs "
                    + "and that a firewall lets the agent reach its port";
            case "REFUSED" -> server + " refused the sign-in: " + InstallOptions.show(s.detail());
            case "PENDING_ACCEPTANCE" -> server + " holds the agent's key pending: the enrollment token was not accepted "
                    + "(wrong, expired or used up) or none was given; accept it with 'drover key accept " + id + "'";
            case "KEY_REJECTED" -> server + " rejected the agent's key; 'drover key accept " + id + "' on the server accepts it";
            case "FINGERPRINT_MISMATCH" -> server + " is not the one --master-finger names: "
                    + InstallOptions.show(s.detail());
            case "MASTER_KEY_CHANGED" -> server + " presents another key than the one the agent trusted before ("
                    + InstallOptions.show(s.detail()) + "); if the server's key really changed, remove "
                    + layout.state().resolve("minion_master.pub");
            case "FAILED" -> "the sign-in to " + InstallOptions.show(s.master()) + " failed: " + InstallOptions.show(s.detail());
            default -> "the agent reports " + InstallOptions.show(s.state()) + ": " + InstallOptions.show(s.detail());
        };
    }

    /** ": <the log's last line>" for an agent the installer runs itself; else nothing. */
    private static String lastLogLine(AgentService service, Layout layout) {
        if (service.kind() != AgentService.Kind.PROCESS) {
            return "";
        }
        try {
            long size = Files.size(layout.logFile());
            byte[] tail;
            try (InputStream in = Files.newInputStream(layout.logFile(), LinkOption.NOFOLLOW_LINKS)) {
                in.skipNBytes(Math.max(0, size - 4096));
                tail = in.readNBytes(4096);
            }
            String[] lines = new String(tail, StandardCharsets.UTF_8).strip().split("\n");
            String line = lines[lines.length - 1].strip();
            return line.isEmpty() ? "" : ": " + InstallOptions.show(line);
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}
