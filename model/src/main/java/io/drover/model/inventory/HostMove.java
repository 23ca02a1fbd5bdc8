package io.drover.model.inventory;

import java.util.List;

/** Request to move a host: to modules (all in one business) or, with only a business, to that business's idle module. */
public record HostMove(Long bkBizId, List<Long> bkModuleIds) {
}
