package io.drover.server.auth;

import io.drover.model.auth.CreatedToken;
import io.drover.model.auth.Role;
import io.drover.model.auth.TokenRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;

/** On the first start (no token in the database) creates the admin token and writes it to {@code <data>/admin.token}, mode 0600. */
public final class AdminTokenFile {
    public static final String FILE_NAME = "admin.token";

    private AdminTokenFile() {
    }

    /** Returns the file written, or null when tokens already existed. */
    public static Path ensure(TokenStore tokens, Path dataDir) {
        if (!tokens.isEmpty()) {
            return null;
        }
        CreatedToken admin = tokens.create(new TokenRequest("admin", Role.ADMIN, List.of()));
        Path file = dataDir.resolve(FILE_NAME);
        try {
            Files.createDirectories(dataDir);
            Files.deleteIfExists(file);
            Set<PosixFilePermission> ownerOnly = PosixFilePermissions.fromString("rw-------");
            Files.createFile(file, PosixFilePermissions.asFileAttribute(ownerOnly));
            Files.writeString(file, admin.token() + "\n", StandardOpenOption.TRUNCATE_EXISTING);
            Files.setPosixFilePermissions(file, ownerOnly);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the admin token to " + file, e);
        }
        return file;
    }
}
