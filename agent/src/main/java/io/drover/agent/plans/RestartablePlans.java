package io.drover.agent.plans;

import io.drover.agent.disk.DurableFiles;
import io.drover.core.Hashing;
import io.drover.core.plans.PlanRestarts;
import io.drover.model.plans.PlanJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * What the plans that came over the Drover transport left of their restarts ({@link PlanRestarts}): a file per plan
 * under {@code <state>/plans/restartable}, named by the plan's ID (or its text's hash when it has none), written
 * when the plan waits for a reboot and when it is restarted, removed when it finishes. A {@code plan.execute} job
 * the journal finds interrupted is run again or answered as its plan's entry here decides.
 */
public final class RestartablePlans {
    private final Path dir;

    public RestartablePlans(Path stateDir) {
        this.dir = stateDir.resolve("plans/restartable");
    }

    public synchronized PlanRestarts read(String plan) {
        Path file = dir.resolve(name(plan));
        try {
            return Files.exists(file) ? PlanRestarts.fromMap(PlanJson.read(Files.readAllBytes(file))) : PlanRestarts.STARTED;
        } catch (IOException e) {
            return PlanRestarts.STARTED;
        }
    }

    public synchronized void write(String plan, PlanRestarts restarts) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        DurableFiles.write(dir.resolve(name(plan)), PlanJson.bytes(restarts.toMap()));
    }

    public synchronized void clear(String plan) {
        try {
            Files.deleteIfExists(dir.resolve(name(plan)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The plan's ID, or the hash of its text when it has none (a vCurrent plan, a bad one). */
    private static String name(String plan) {
        String id = "";
        try {
            if (PlanJson.read(plan) instanceof Map<?, ?> map && map.get("ID") instanceof String text) {
                id = "id:" + text;
            }
        } catch (IOException e) {
            // the text's hash below
        }
        return Hashing.sha256(id.isEmpty() ? "text:" + plan : id);
    }
}
