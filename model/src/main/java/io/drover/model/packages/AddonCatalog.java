package io.drover.model.packages;

import java.util.List;
import java.util.Map;

/**
 * Every addon the registries offer or that is enabled, the registry entries skipped because they are broken, and
 * the registries that could not be read (name → why).
 */
public record AddonCatalog(List<AddonInfo> addons, List<SkippedEntry> skipped, Map<String, String> unreadableRegistries) {
}
