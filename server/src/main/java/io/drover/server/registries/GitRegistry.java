package io.drover.server.registries;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.ResetCommand;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;

/**
 * A Git repository (JGit): {@code path} inside it holds one addon per sub-directory. The server keeps a clone under
 * {@code <data>/registries/<name>} and brings it to {@code ref} (branch, tag or commit; default HEAD) on each listing.
 */
final class GitRegistry implements RegistryReader {
    private static final int TIMEOUT_SECONDS = 30;

    private final String name;
    private final String url;
    private final String ref;
    private final Path clone;
    private final DirectoryPackages directory;

    GitRegistry(String name, String url, String path, String ref, Path clone) {
        this.name = name;
        this.url = url;
        this.ref = ref == null || ref.isBlank() ? null : ref;
        this.clone = clone;
        Path root = path == null || path.isBlank() ? clone : clone.resolve(path).normalize();
        if (!root.startsWith(clone)) {
            throw new RegistryException("registry " + name + ": path '" + path + "' leaves the repository");
        }
        this.directory = new DirectoryPackages(name, root);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public synchronized Listing list() {
        sync();
        return directory.list();
    }

    @Override
    public synchronized byte[] readFile(String relativePath) {
        return directory.readFile(relativePath);
    }

    @Override
    public synchronized byte[] fetch(Entry entry) {
        return directory.fetch(entry);
    }

    private void sync() {
        try {
            if (Files.isDirectory(clone.resolve(".git")) && !url.equals(originUrl())) {
                deleteTree(clone); // the registry was re-added with another repository
            }
            if (!Files.isDirectory(clone.resolve(".git"))) {
                deleteTree(clone);
                Files.createDirectories(clone.getParent());
                try (Git ignored = Git.cloneRepository().setURI(url).setDirectory(clone.toFile()).setTimeout(TIMEOUT_SECONDS)
                        .setNoCheckout(false).call()) {
                    // cloned; the checkout below picks the ref
                }
            }
            try (Git git = Git.open(clone.toFile())) {
                git.fetch().setRemote("origin").setTimeout(TIMEOUT_SECONDS).setForceUpdate(true)
                        .setRefSpecs("+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*").call();
                ObjectId target = resolve(git.getRepository());
                git.reset().setMode(ResetCommand.ResetType.HARD).setRef(target.name()).call();
                git.clean().setCleanDirectories(true).setForce(true).call();
            }
        } catch (GitAPIException | IOException | RuntimeException e) {
            if (e instanceof RegistryException r) {
                throw r;
            }
            throw new RegistryException("registry " + name + ": cannot read git repository " + url
                    + (ref == null ? "" : " at " + ref) + ": " + e.getMessage(), e);
        }
    }

    private String originUrl() throws IOException {
        try (Git git = Git.open(clone.toFile())) {
            return git.getRepository().getConfig().getString("remote", "origin", "url");
        }
    }

    private ObjectId resolve(Repository repo) throws IOException {
        if (ref == null) {
            ObjectId head = repo.resolve("refs/remotes/origin/HEAD");
            if (head == null) {
                head = repo.resolve("refs/remotes/origin/" + repo.getBranch());
            }
            if (head == null) {
                head = repo.resolve("HEAD");
            }
            return head;
        }
        for (String candidate : List.of("refs/remotes/origin/" + ref, "refs/tags/" + ref, ref)) {
            ObjectId id = repo.resolve(candidate + "^{commit}");
            if (id != null) {
                return id;
            }
        }
        throw new RegistryException("registry " + name + ": ref '" + ref + "' is not a branch, tag or commit of " + url);
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
