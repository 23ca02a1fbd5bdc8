package io.drover.model.subscriptions;

/** What a change plan does to one instance for one step (docs/operations.md, "Subscriptions"). SKIP and FAIL are reported, not executed. */
public enum ChangeAction {
    INSTALL, UNINSTALL, PUSH_CONFIG, START, STOP, NOT_CHANGE, SKIP, FAIL;

    /** True for the actions that send work to an agent. */
    public boolean changes() {
        return this == INSTALL || this == UNINSTALL || this == PUSH_CONFIG || this == START || this == STOP;
    }
}
