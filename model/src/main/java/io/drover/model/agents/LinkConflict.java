package io.drover.model.agents;

import java.time.OffsetDateTime;

/**
 * Why an agent stays unlinked: the address it claimed ({@code claimed_ip}, {@code bk_cloud_id}), the reason, and
 * the host at that address ({@code bk_host_id}: only for a caller who may see that host's business).
 */
public record LinkConflict(LinkConflictReason reason, String claimedIp, long bkCloudId, Long bkHostId, OffsetDateTime since) {
}
