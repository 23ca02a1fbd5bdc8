package io.drover.transport.master;

import java.util.Map;

/** What the master asks of the control plane: key decisions, and what to do with returns and events. */
public interface MasterHandler {

    /** Decides on a presented key; also records a new key as pending (or accepts it under auto-accept). */
    KeyDecision decideKey(String id, String publicKeyPem, Map<?, ?> authLoad);

    /** The accepted public key of a minion, or null when the id is not accepted. */
    String acceptedKey(String id);

    /** A job return from an accepted minion ({@code _return} load, nonce removed). Returns the reply value. */
    Object onReturn(String id, Map<?, ?> load);

    /**
     * An event from an accepted minion ({@code _minion_event}): under the agent's own key, or with a verified token
     * under the shared key; {@code id} is the authenticated sender.
     */
    Object onEvent(String id, Map<?, ?> load);

    /**
     * A salt-minion's pillar request ({@code _pillar}, sent at start with its grains); the reply is the minion's
     * pillar. Drover keeps no pillar data: an empty map.
     */
    default Map<String, Object> onPillar(String id, Map<?, ?> load) {
        return Map.of();
    }

    /**
     * Any other AES command from an accepted minion (fileserver and so on); null means "not supported". {@code id} is
     * null for the fileserver commands of a salt-minion, which sends none.
     */
    default Object onCommand(String id, String cmd, Map<?, ?> load) {
        return null;
    }

    /**
     * An accepted minion's mode changed: it signed in as a Drover agent or a salt-minion, or a salt-minion's messages
     * started or stopped carrying signatures. Kept for listings and for the other servers of a cluster.
     */
    default void onMode(String id, AgentMode mode) {
    }

    /** The mode last recorded for a minion (by any server of a cluster); null when none is. */
    default AgentMode agentMode(String id) {
        return null;
    }

    /**
     * Whether a salt-minion's returns and events must carry a signature by its key (Salt's
     * {@code require_minion_sign_messages}); unsigned ones are then refused.
     */
    default boolean requireSignedMessages() {
        return false;
    }

    /** The transport rebuilt one of its endpoints after it stopped (what: which one). */
    default void onTransportRestart(String what) {
    }
}
