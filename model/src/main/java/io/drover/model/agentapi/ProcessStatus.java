package io.drover.model.agentapi;

/** A registered process's state as the agent sees it; UNREGISTER when no process of that name is registered. */
public enum ProcessStatus { RUNNING, TERMINATED, UNREGISTER }
