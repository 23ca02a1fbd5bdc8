package io.drover.model.subscriptions;

import java.time.OffsetDateTime;
import java.util.List;

/** An instance of a subscription: what is deployed for it and its last task. */
public record InstanceStatus(String instanceId, InstanceState status, List<Deployed> deployed, Long lastTaskId,
                             RunStatus lastTaskStatus) {
    /** One deployed copy: step, plugin, version, process status, port, host. */
    public record Deployed(String stepId, String plugin, String version, CopyStatus status, Integer port, long bkHostId,
                           String groupId, OffsetDateTime updatedAt) {
    }
}
