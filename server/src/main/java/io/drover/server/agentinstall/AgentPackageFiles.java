package io.drover.server.agentinstall;

import java.nio.file.Path;
import java.util.Optional;

/** The agent packages ({@code drover-agent-<version>-linux-<arch>.tar.gz}) hosts can be given. */
public interface AgentPackageFiles {
    /** The newest package for {@code arch} (x86_64 or aarch64). */
    Optional<PackageFile> newest(String arch);

    /** The package of that version and architecture. */
    Optional<PackageFile> find(String version, String arch);

    /** One package: its file, version, architecture and the sha256 of the file (hex). */
    record PackageFile(Path path, String version, String arch, String sha256) {
        /** The file's name: drover-agent-VERSION-linux-ARCH.tar.gz. */
        public String fileName() {
            return "drover-agent-" + version + "-linux-" + arch + ".tar.gz";
        }

        /** The directory the package unpacks to. */
        public String dirName() {
            return "drover-agent-" + version + "-linux-" + arch;
        }
    }
}
