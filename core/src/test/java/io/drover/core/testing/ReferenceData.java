package io.drover.core.testing;

import java.nio.file.Files;
import java.nio.file.Path;

/** Finds {@code ../shared/reference-data} beside the checkout, from whichever module directory the test runs in. */
public final class ReferenceData {
    private ReferenceData() {
    }

    public static Path dir(String sub) {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            Path candidate = p.resolveSibling("shared").resolve("reference-data").resolve(sub);
            if (Files.isDirectory(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("../shared/reference-data/" + sub + " not found beside the checkout; "
                + "the conformance tests need it");
    }
}
