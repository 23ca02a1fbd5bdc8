package io.drover.model.inventory;

/** A CMDB set: a group of modules inside one business. */
public record TopoSet(Long bkSetId, Long bkBizId, String bkSetName) {
}
