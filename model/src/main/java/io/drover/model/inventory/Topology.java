package io.drover.model.inventory;

import java.util.List;

/** A business's topology tree with host and service-instance counts per module. */
public record Topology(long bkBizId, String bkBizName, List<SetTree> sets) {

    public record SetTree(long bkSetId, String bkSetName, List<ModuleLeaf> modules) {
    }

    public record ModuleLeaf(long bkModuleId, String bkModuleName, boolean idle, long hostCount,
                             long serviceInstanceCount) {
    }
}
