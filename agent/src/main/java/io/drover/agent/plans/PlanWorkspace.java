package io.drover.agent.plans;

import io.drover.core.Hashing;
import io.drover.core.plans.PlanErrorCode;
import io.drover.core.plans.PlanException;
import io.drover.core.plans.PlanFile;
import io.drover.core.plans.PlanScript;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.Map;

/**
 * A plan's files on disk, under its working directory: each file once in {@code files/}, and a folder per script
 * with links named as the plan names them (a script reads {@code readlink name} to find the copy, as the reference
 * agent's scripts do). Every path stays inside the working directory.
 */
final class PlanWorkspace {
    private final PlanContext plan;
    private final FileFetcher fetcher;
    private final Map<String, Path> stored = new HashMap<>();
    private final Map<String, PlanFile> added;

    /** {@code added}: files the Body added with {@code api.addFile}. */
    PlanWorkspace(PlanContext plan, FileFetcher fetcher, Map<String, PlanFile> added) {
        this.plan = plan;
        this.fetcher = fetcher;
        this.added = added;
    }

    /** Lays the script's folder out (once per plan: the runner keeps the result). */
    LoadedScript load(PlanScript script) throws InterruptedException {
        Path folder = inside(plan.workDir().resolve("scripts").resolve(script.name()));
        try {
            Files.createDirectories(folder);
            Path entry = null;
            String entryName = null;
            if (plan.plan().files().containsKey(script.entryPoint())) {
                PlanFile file = plan.plan().files().get(script.entryPoint());
                entry = link(folder, file);
                entryName = file.name();
            }
            for (String id : script.files()) {
                link(folder, file(id));
            }
            return new LoadedScript(script, folder, entry, entryName);
        } catch (IOException e) {
            throw new PlanException(PlanErrorCode.FETCH_ERROR, "Cannot store the files of script " + script.name() + ": " + e.getMessage());
        }
    }

    /** {@code api.putFile}: a copy of the file at {@code target} (the caller has checked where that is). */
    void put(String fileId, Path target) throws InterruptedException {
        try {
            Path source = store(file(fileId));
            Files.createDirectories(target.toAbsolutePath().getParent());
            Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new PlanException(PlanErrorCode.FETCH_ERROR, "Cannot store file " + fileId + " at " + target + ": " + e.getMessage());
        }
    }

    /** A path under the working directory; one that leaves it is refused. */
    Path inside(Path path) {
        Path root = plan.workDir().toAbsolutePath().normalize();
        Path resolved = path.toAbsolutePath().normalize();
        if (!resolved.startsWith(root) || resolved.equals(root)) {
            throw new PlanException(PlanErrorCode.GENERIC, "The path " + path + " leaves the plan's working directory");
        }
        return resolved;
    }

    private PlanFile file(String id) {
        PlanFile file = plan.plan().files().containsKey(id) ? plan.plan().files().get(id) : added.get(id);
        if (file == null) {
            throw new PlanException(PlanErrorCode.MISSING_FILES, "The plan has no file " + id);
        }
        return file;
    }

    private Path link(Path folder, PlanFile file) throws IOException, InterruptedException {
        Path link = inside(folder.resolve(file.name()));
        Files.createDirectories(link.getParent());
        Files.deleteIfExists(link);
        Files.createSymbolicLink(link, store(file));
        return link;
    }

    private Path store(PlanFile file) throws IOException, InterruptedException {
        Path existing = stored.get(file.id());
        if (existing != null) {
            return existing;
        }
        Path target = plan.workDir().resolve("files").resolve(Hashing.sha256(file.id()).substring(0, 32)).toAbsolutePath();
        Files.createDirectories(target.getParent());
        switch (file.kind()) {
            case TEXT -> Files.writeString(target, file.body(), StandardCharsets.UTF_8);
            case BASE64 -> Files.write(target, PlanFile.decodeBase64(file.body()));
            case DOWNLOADABLE -> Files.copy(fetcher.fetch(file, plan.limit(null)), target, StandardCopyOption.REPLACE_EXISTING);
        }
        stored.put(file.id(), target);
        return target;
    }
}
