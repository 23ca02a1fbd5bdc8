package io.drover.model.cluster;

import java.util.List;

/**
 * One server's view of its cluster: its id (this run of it), whether it is in a cluster and connected to NATS, the
 * periodic duties it holds now, and the generation of the shared session key it uses (null on its own).
 */
public record ClusterStatus(String server, boolean clustered, boolean natsConnected, List<String> duties,
                            Long sessionKeyGeneration) {
}
