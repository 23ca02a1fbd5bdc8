package io.drover.server.inventory;

import java.util.List;

/**
 * Where in the topology to list from: a business, a set or a module (at most one is needed; the narrowest
 * given wins), a host for service instances, and the businesses the caller may see (null = all).
 */
public record TopoFilter(Long bizId, Long setId, Long moduleId, Long hostId, List<Long> allowedBiz) {

    public static TopoFilter business(long bizId) {
        return new TopoFilter(bizId, null, null, null, null);
    }

    public static TopoFilter module(long moduleId) {
        return new TopoFilter(null, null, moduleId, null, null);
    }
}
