package io.drover.dist;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Local agents stand for hosts; the plugin processes they start keep running when an agent stops, as on a real
 * host. When the quickstart (or a test) switches its simulated hosts off, those processes go too: every process whose
 * working directory is under a host root is ended. Linux only ({@code /proc/<pid>/cwd}); elsewhere nothing is done.
 */
final class SimulatedHosts {
    private SimulatedHosts() {
    }

    static int stopProcessesUnder(Path roots) {
        Path root = roots.toAbsolutePath().normalize();
        int[] stopped = {0};
        long self = ProcessHandle.current().pid();
        ProcessHandle.allProcesses().filter(p -> p.pid() != self).forEach(p -> {
            try {
                Path cwd = Files.readSymbolicLink(Path.of("/proc", Long.toString(p.pid()), "cwd"));
                if (cwd.startsWith(root)) {
                    p.destroy();
                    stopped[0]++;
                }
            } catch (IOException | UnsupportedOperationException | SecurityException e) {
                // not ours, already gone, or no /proc: leave it
            }
        });
        return stopped[0];
    }
}
