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

    /** An event from an accepted minion whose token was verified ({@code _minion_event}). */
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

    /** The transport rebuilt one of its endpoints after it stopped (what: which one). */
    default void onTransportRestart(String what) {
    }
}
