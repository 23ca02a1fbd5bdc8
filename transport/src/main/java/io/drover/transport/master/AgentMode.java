package io.drover.transport.master;

/** How an accepted minion talks to the master, as it last signed in or was heard. */
public enum AgentMode {
    /** A Drover agent with a session key of its own: its requests and its jobs are under that key only. */
    DROVER("drover"),
    /** A salt-minion (or an older agent) on the shared session key, its messages unsigned. */
    SALT("salt"),
    /** A salt-minion on the shared session key that signs its returns and events ({@code minion_sign_messages}). */
    SALT_SIGNED("salt-signed");

    private final String label;

    AgentMode(String label) {
        this.label = label;
    }

    /** What listings show: {@code drover}, {@code salt}, {@code salt-signed}. */
    public String label() {
        return label;
    }

    /** The mode of a label; null for null or an unknown label. */
    public static AgentMode ofLabel(String label) {
        for (AgentMode mode : values()) {
            if (mode.label.equals(label)) {
                return mode;
            }
        }
        return null;
    }
}
