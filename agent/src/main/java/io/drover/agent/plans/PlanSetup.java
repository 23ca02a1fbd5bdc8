package io.drover.agent.plans;

import io.drover.agent.functions.FileSource;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/**
 * Where and how an agent runs plans: its root (absolute paths of {@code api.putFile} are under it), its state
 * directory (working directories, file cache, the state API's store, the queue), the bootstrap file, the host's
 * python3 (null when absent), the fileserver for {@code salt://} files, and the default plan timeout.
 */
public record PlanSetup(Path root, Path stateDir, Path bootstrap, String python, String agentVersion, FileSource fileserver,
                        Clock clock, Duration defaultTimeout) {
}
