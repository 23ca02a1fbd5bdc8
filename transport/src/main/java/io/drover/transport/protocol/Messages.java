package io.drover.transport.protocol;

import io.drover.transport.wire.MalformedFrameException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/** Small shared pieces of the Salt protocol: envelopes, nonces, id rules, topic hashes. */
public final class Messages {
    /**
     * Key in a Drover master's sign-in reply: its publishes carry a topic frame, so a minion subscribes to its own
     * topic and "broadcast" only. A salt-master does not send it and publishes untagged frames by default.
     */
    public static final String TOPICS_FLAG = "drover_topics";

    /**
     * Key in a Drover agent's sign-in request (it asks for a session key of its own) and in the master's reply (the
     * {@code aes} it seals is that key). A salt-master ignores it and a salt-minion never sends it.
     */
    public static final String AGENT_KEY_FLAG = "drover_agent_key";
    /**
     * Key in a Drover agent's sign-in request and in the master's reply: the reply's one signature (over the whole
     * packed load, which holds the sealed session key and the nonce) is all the agent needs, so the master leaves out
     * Salt's second one, the X9.31 proof of the session key: one RSA private operation fewer per sign-in. A master
     * that does not know it sends the proof, which the agent then checks as before.
     */
    public static final String SIGN_ONCE_FLAG = "drover_sign_once";
    /** An enrollment token in clear in {@code _auth} (older agents): refused unless the server allows it. */
    public static final String ENROLL_PLAIN = "drover_enroll";
    /** An enrollment token encrypted to the master's key (RSA-OAEP) in {@code _auth}. */
    public static final String ENROLL_SEALED = "drover_enroll_sealed";
    /**
     * In {@code _auth}: the agent holds an enrollment token but not yet the master's key to seal it to; the master
     * answers with its key and decides nothing (no pending key, no auto-accept without the token's business).
     */
    public static final String ENROLL_PROBE = "drover_enroll_probe";
    /** What the master hands its handler: the sealed token opened (never taken from the wire). */
    public static final String ENROLL_OPENED = "drover_enroll_opened";

    /**
     * The {@code enc} of what travels under an agent's own key: its requests ({@code {"enc": "drover", "id": <its id>,
     * "load": <ciphertext>}}, the id telling the master which key to use) and its jobs ({@code {"enc": "drover",
     * "load": <ciphertext>}}, authenticated by the key's HMAC, not signed). A salt-minion ignores publishes whose
     * {@code enc} is not {@code aes}, and never sends this form.
     */
    public static final String AGENT_ENC = "drover";

    /**
     * The master's answer to a sign-in from an address over its limit for the minute: a plain string, which a
     * salt-minion logs ("Sign-in attempt failed: …") before it tries again after its acceptance wait.
     */
    public static final String SIGN_IN_LIMITED = "too many sign-ins from this address; try again later";

    public static final int VERSION = 2;
    private static final Pattern VALID_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._@-]{0,254}");

    private Messages() {
    }

    public static Map<String, Object> envelope(String enc, Object load) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("enc", enc);
        m.put("load", load);
        m.put("version", VERSION);
        return m;
    }

    /** A request envelope under an agent's own key: the id in the clear names the key. */
    public static Map<String, Object> agentEnvelope(String id, byte[] ciphertext) {
        Map<String, Object> m = envelope(AGENT_ENC, ciphertext);
        m.put("id", id);
        return m;
    }

    public static String nonce() {
        return io.drover.transport.crypto.Randomness.hexNonce();
    }

    /** Minion ids become file names and topics: letters, digits, {@code . _ @ -}, not starting with a dot. */
    public static boolean validId(Object id) {
        return id instanceof String s && VALID_ID.matcher(s).matches() && !s.contains("..");
    }

    /** The publish topic of a minion with Salt's zmq_filtering: sha1 hex of its id. */
    public static String topic(String id) {
        return io.drover.core.Hashing.sha1(id);
    }

    public static Map<?, ?> map(Object value, String what) {
        if (value instanceof Map<?, ?> m) {
            return m;
        }
        throw new MalformedFrameException(what + " is not a map");
    }

    public static String string(Map<?, ?> map, String key) {
        Object value = map.get(key);
        if (value instanceof String s) {
            return s;
        }
        throw new MalformedFrameException("field '" + key + "' is missing or not text");
    }

    /**
     * A decoded value made fit for JSON: map keys as strings, byte strings (non-UTF-8 output) as text with
     * replacement characters.
     */
    public static Object jsonSafe(Object value) {
        return switch (value) {
            case byte[] b -> new String(b, java.nio.charset.StandardCharsets.UTF_8);
            case Map<?, ?> m -> {
                Map<String, Object> out = new java.util.LinkedHashMap<>();
                m.forEach((k, v) -> out.put(String.valueOf(k), jsonSafe(v)));
                yield out;
            }
            case java.util.List<?> l -> l.stream().map(Messages::jsonSafe).toList();
            case null, default -> value;
        };
    }
}
