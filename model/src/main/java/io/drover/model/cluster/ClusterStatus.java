package io.drover.model.cluster;

import java.util.List;

/**
 * One server's view of its cluster: its id (this run of it), whether it is in a cluster and connected to NATS, the
 * periodic duties it holds now, the generation of the shared session key it uses (null on its own), the kinds of
 * credentials it gave NATS ("user", "token", "nkey", "certificate", comma-separated, or "none"; null on its own),
 * and whether it runs without any ({@code --cluster-insecure}).
 */
public record ClusterStatus(String server, boolean clustered, boolean natsConnected, List<String> duties,
                            Long sessionKeyGeneration, String natsCredentials, boolean insecure) {
}
