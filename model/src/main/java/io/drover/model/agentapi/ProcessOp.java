package io.drover.model.agentapi;

/** What {@code proc.operate} does to a registered process (GSE's operations). */
public enum ProcessOp { START, STOP, RESTART, RELOAD, QUERY, DELEGATE, UNDELEGATE }
