package io.drover.model.packages;

import java.util.List;
import java.util.Map;

/** What enabling or upgrading did (or, in a dry run, would do): the install order and the rendered NOTES. */
public record AddonChange(String addon, String version, boolean dryRun, List<Step> steps,
                          Map<String, String> alreadyInstalled, String notes) {
    /** One addon in install order; {@code action}: install, upgrade or reconfigure. */
    public record Step(String name, String version, String registry, AddonStepAction action, List<String> requiredBy) {
    }
}
