package io.drover.core.subscriptions;

/** Why the planner chose an action; shown by {@code drover sub plan} and stored with each instance's task record. */
public enum Reason {
    NEW_INSTALL("new in the scope"),
    LAST_RUN_UNKNOWN("the last run left it in an unknown state"),
    PROC_NUM_NOT_MATCH("deployed copies do not match the target hosts"),
    VERSION_CHANGE("the plugin version changed"),
    CONFIG_CHANGE("rendered config files changed"),
    PROC_STOPPED("the process is stopped"),
    UP_TO_DATE("deployed as desired"),
    REMOVE_FROM_SCOPE("left the scope"),
    STEP_REMOVED("its step was removed from the subscription"),
    OUT_OF_BUSINESS("moved to another business; kept until the subscription is deleted"),
    SUBSCRIPTION_DELETED("the subscription is deleted"),
    AGENT_OFFLINE("the agent is offline; planned again when it is back"),
    SUBSCRIPTION_DISABLED("the subscription is disabled"),
    RENDER_FAILED("a config template cannot be rendered");

    private final String text;

    Reason(String text) {
        this.text = text;
    }

    public String text() {
        return text;
    }
}
