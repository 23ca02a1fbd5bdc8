package io.drover.model.plans;

import java.time.OffsetDateTime;

/** A plan in a list: its hosts and how many answered with success and with an error. */
public record PlanSummary(String id, String name, String jid, String createdBy, OffsetDateTime createdAt, PlanStatus status,
                          int hosts, int succeeded, int failed) {
}
