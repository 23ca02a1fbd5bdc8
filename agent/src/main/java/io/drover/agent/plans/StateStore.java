package io.drover.agent.plans;

import io.drover.agent.disk.DurableFiles;
import io.drover.core.Hashing;
import io.drover.core.plans.PlanErrorCode;
import io.drover.core.plans.PlanException;
import io.drover.model.plans.PlanJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The state API's store: one JSON file per service under {@code <state>/plan-state}, written to a temporary file,
 * forced to disk and renamed, so a value set is kept across a crash. At most {@link #MAX_BYTES} per service.
 */
final class StateStore {
    static final int MAX_BYTES = 1 << 20;
    private final Path dir;

    StateStore(Path dir) {
        this.dir = dir;
    }

    synchronized Object get(String service, String key) {
        return read(service).get(key);
    }

    synchronized void set(String service, String key, Object value) {
        Map<String, Object> values = read(service);
        if (value == null) {
            values.remove(key);
        } else {
            values.put(key, value);
        }
        write(service, values);
    }

    synchronized void remove(String service, String key) {
        Map<String, Object> values = read(service);
        if (values.remove(key) != null) {
            write(service, values);
        }
    }

    private Path file(String service) {
        return dir.resolve(Hashing.sha256(service) + ".json");
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> read(String service) {
        Path file = file(service);
        try {
            if (!Files.exists(file)) {
                return new LinkedHashMap<>();
            }
            return new LinkedHashMap<>((Map<String, Object>) PlanJson.read(Files.readAllBytes(file)));
        } catch (IOException e) {
            throw new PlanException(PlanErrorCode.GENERIC, "The state of service " + service + " cannot be read: " + e.getMessage());
        }
    }

    private void write(String service, Map<String, Object> values) {
        try {
            byte[] bytes = PlanJson.bytes(values);
            if (bytes.length > MAX_BYTES) {
                throw new PlanException(PlanErrorCode.GENERIC, "The state of service " + service + " would be over "
                        + MAX_BYTES + " bytes");
            }
            Files.createDirectories(dir);
            DurableFiles.write(file(service), bytes);
        } catch (IOException | java.io.UncheckedIOException e) {
            throw new PlanException(PlanErrorCode.GENERIC, "The state of service " + service + " cannot be written: " + e.getMessage());
        }
    }
}
