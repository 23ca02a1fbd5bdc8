package io.drover.model.cluster;

import java.util.List;

/**
 * One server's view of its cluster: its id (this run of it), whether it is in a cluster and connected to NATS, and
 * the periodic duties it holds now.
 */
public record ClusterStatus(String server, boolean clustered, boolean natsConnected, List<String> duties) {
}
