package io.drover.transport.master;

/** Why the master refused a request from an accepted minion on identity grounds (counted by reason). */
public enum RequestRefusal {
    /** Under an agent's own key, the load claimed another id. */
    ID_MISMATCH("id-mismatch"),
    /** Under the shared key, the load claimed the id of a Drover agent (which uses its own key only). */
    SHARED_KEY("shared-key"),
    /**
     * A sign-in without the agent flag named a Drover agent: it would have turned the agent into a salt-minion (its jobs
     * under the shared key) and handed the shared key out, and a sign-in proves nothing about the private key.
     */
    AGENT_WITHOUT_FLAG("agent-without-flag"),
    /** Not under the key of the agent the envelope names: another agent's request replayed, or a key from before a restart. */
    WRONG_KEY("wrong-key"),
    /** A salt-minion's return or event without {@code sig} while signed messages are required. */
    UNSIGNED("unsigned"),
    /** A salt-minion's return or event whose {@code sig} does not verify with its accepted key. */
    BAD_SIGNATURE("bad-signature");

    private final String label;

    RequestRefusal(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
