package io.drover.server.keys;

import io.drover.transport.crypto.RsaKeys;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.interfaces.RSAPrivateCrtKey;

/** The master's RSA key in {@code <data>/master.pem} (PKCS#1 PEM, mode 0600), created on first start. */
public final class MasterKeyFile {
    public static final String FILE_NAME = "master.pem";

    private MasterKeyFile() {
    }

    public static RSAPrivateCrtKey loadOrCreate(Path dataDir) {
        Path file = dataDir.resolve(FILE_NAME);
        try {
            if (Files.exists(file)) {
                return RsaKeys.parsePrivate(Files.readString(file));
            }
            RSAPrivateCrtKey key = (RSAPrivateCrtKey) RsaKeys.generate().getPrivate();
            Path temp = dataDir.resolve(FILE_NAME + ".tmp");
            Files.deleteIfExists(temp);
            Files.createFile(temp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(temp, RsaKeys.privatePem(key));
            Files.move(temp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            return key;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or create the master key " + file, e);
        }
    }
}
