package io.drover.agent.functions;

import java.io.IOException;
import java.nio.file.Path;

/** Where packages come from: a server file fetched to a local temporary file whose sha256 was verified. */
public interface FileSource {

    /** Fetches {@code path} into a new temporary file; fails when it is missing or its sha256 differs. */
    Path fetch(String path, String expectedSha256) throws IOException;
}
