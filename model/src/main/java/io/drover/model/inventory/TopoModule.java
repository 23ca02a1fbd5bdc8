package io.drover.model.inventory;

/**
 * A CMDB module: hosts and service instances live in modules. Every business has one idle module,
 * where hosts land before an operator places them.
 */
public record TopoModule(Long bkModuleId, Long bkSetId, Long bkBizId, String bkModuleName, boolean idle) {
}
