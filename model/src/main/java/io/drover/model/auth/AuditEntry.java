package io.drover.model.auth;

import java.time.OffsetDateTime;

/** One mutation request as the audit log recorded it. */
public record AuditEntry(long id, OffsetDateTime at, String actor, String method, String path, int status, String detail) {
}
