package io.drover.dist;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** Tests that run against one {@link TwoBusinesses} world, started once for the class. */
abstract class WithTwoBusinesses {
    @TempDir
    static Path roots;
    static TwoBusinesses world;

    @BeforeAll
    static void startTheWorld() throws Exception {
        world = new TwoBusinesses(roots);
    }

    @AfterAll
    static void stopTheWorld() {
        world.close();
    }
}
