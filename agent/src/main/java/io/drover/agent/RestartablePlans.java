package io.drover.agent;

import io.drover.core.Hashing;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Plans that came over the Drover transport and wait for a reboot ({@code api.waitReboot}): a file per plan under
 * {@code <state>/plans/restartable} with the restarts left. A job interrupted by a stop is reported, never run
 * again, unless its plan is here with restarts left.
 */
final class RestartablePlans {
    private final Path dir;

    RestartablePlans(Path stateDir) {
        this.dir = stateDir.resolve("plans/restartable");
    }

    synchronized void mark(String planId, int restarts) {
        try {
            Files.createDirectories(dir);
            Path temp = dir.resolve(name(planId) + ".part");
            Files.writeString(temp, Integer.toString(restarts));
            Files.move(temp, dir.resolve(name(planId)), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** True (and one restart fewer) when the plan may run again. */
    synchronized boolean takeRestart(String planId) {
        Path file = dir.resolve(name(planId));
        try {
            if (!Files.exists(file)) {
                return false;
            }
            int left = Integer.parseInt(Files.readString(file, StandardCharsets.UTF_8).strip());
            if (left <= 0) {
                Files.deleteIfExists(file);
                return false;
            }
            mark(planId, left - 1);
            return true;
        } catch (IOException | NumberFormatException e) {
            return false;
        }
    }

    synchronized void clear(String planId) {
        try {
            Files.deleteIfExists(dir.resolve(name(planId)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String name(String planId) {
        return Hashing.sha256(String.valueOf(planId));
    }
}
