package io.drover.model.inventory;

import java.util.Map;

/** A CMDB business: the top of the topology and the unit of access control. */
public record Business(Long bkBizId, String bkBizName, Map<String, Object> attributes) {
    public Business {
        attributes = attributes == null ? Map.of() : Map.copyOf(attributes);
    }
}
