package io.drover.model.subscriptions;

import java.util.List;

/**
 * What one subscription step deployed on a host ({@code GET /hosts/{id}/plugins}): the plugin, its version and copy
 * status, its port, the subscription and step it came from, and the names of its files.
 */
public record HostPlugin(String plugin, String version, CopyStatus status, Integer port, long subscriptionId,
                         String subscription, String stepId, String instanceId, String groupId, List<String> files) {
    public HostPlugin {
        files = files == null ? List.of() : List.copyOf(files);
    }
}
