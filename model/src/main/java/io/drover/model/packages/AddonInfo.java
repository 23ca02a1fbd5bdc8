package io.drover.model.packages;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;

/**
 * An addon as {@code addon list} and {@code addon status} show it: the installed version (null when not enabled),
 * what the registries offer, its dependencies with whether each is satisfied, and its parameters, secrets masked.
 */
public record AddonInfo(String name, AddonState status, String installedVersion, String registry,
                        List<String> availableVersions, String description, List<DependencyState> dependencies,
                        Map<String, Object> params, OffsetDateTime enabledAt, OffsetDateTime updatedAt) {
    public record DependencyState(String name, String constraint, String installedVersion, boolean satisfied) {
    }
}
