package io.drover.transport.envelope;

import java.util.Collection;

/** Sends a job's publish load to agents: the master's queue, a cluster's peers, or both. */
@FunctionalInterface
public interface JobPublisher {
    /** Sends {@code load} to the given agents, or to every agent when {@code agents} is null (one broadcast). */
    void publish(PublishLoad load, Collection<String> agents);
}
