package io.drover.agent;

import io.drover.transport.crypto.RsaKeys;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.interfaces.RSAPrivateCrtKey;

/** The agent's identity in its state directory: {@code minion.pem} (0600), {@code minion.pub}, and the pinned {@code minion_master.pub}. */
final class AgentKeys {
    private final Path stateDir;

    AgentKeys(Path stateDir) {
        this.stateDir = stateDir;
    }

    RSAPrivateCrtKey loadOrCreate() {
        Path pem = stateDir.resolve("minion.pem");
        try {
            Files.createDirectories(stateDir);
            if (Files.exists(pem)) {
                return RsaKeys.parsePrivate(Files.readString(pem));
            }
            RSAPrivateCrtKey key = (RSAPrivateCrtKey) RsaKeys.generate().getPrivate();
            writePrivate(pem, RsaKeys.privatePem(key));
            Files.writeString(stateDir.resolve("minion.pub"), RsaKeys.publicPem(RsaKeys.publicOf(key)));
            return key;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or create the agent key in " + stateDir, e);
        }
    }

    String pinnedMaster() {
        Path file = stateDir.resolve("minion_master.pub");
        try {
            return Files.exists(file) ? Files.readString(file) : null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void pinMaster(String pem) {
        try {
            Path temp = stateDir.resolve("minion_master.pub.tmp");
            Files.writeString(temp, pem);
            Files.move(temp, stateDir.resolve("minion_master.pub"), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot pin the master key", e);
        }
    }

    private static void writePrivate(Path file, String text) throws IOException {
        Path temp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.deleteIfExists(temp);
        Files.createFile(temp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(temp, text);
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
    }
}
