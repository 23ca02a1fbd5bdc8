package io.drover.model.secrets;

import java.time.OffsetDateTime;

/** A stored secret as listings show it: its business, name and when and by whom it was set; never its value. */
public record SecretInfo(long bkBizId, String name, String updatedBy, OffsetDateTime createdAt, OffsetDateTime updatedAt) {
}
