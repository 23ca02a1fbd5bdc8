package io.drover.agent.journal;

import io.drover.agent.disk.DurableFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The agent's durable record of jobs, one small file per state in {@code <state>/journal}:
 * {@code <jid>.job} when a job is accepted (before it runs), {@code <jid>.ret} when its return is ready (before it
 * is sent), {@code <jid>.done} once the server acknowledged it. Files are written to a temporary name, forced to
 * disk and renamed, so a {@code kill -9} leaves either the old state or the new one.
 *
 * <p>Guarantees: a job id seen before is never run again; a return written but not acknowledged is sent again
 * after a restart; a job interrupted while running is reported as interrupted, not re-run. Acknowledged job ids are
 * kept ten thousand deep; below them a watermark (the newest forgotten Salt jid, which orders by time) refuses any
 * older Salt jid, so that a job frame captured long ago and replayed after the agent's serial was reset still does
 * not run.
 */
public final class Journal {
    private static final int KEEP_DONE = 10_000;
    /** Salt's job ids: the time they were made, to the microsecond, so that they sort in time. */
    private static final java.util.regex.Pattern SALT_JID = java.util.regex.Pattern.compile("\\d{20}");
    private static final String WATERMARK = "forgotten-up-to";
    private final Path dir;

    private final int keepDone;
    /** The newest Salt jid forgotten (null: none yet); kept in {@code forgotten-up-to}. */
    private String watermark;

    public Journal(Path stateDir) {
        this(stateDir, KEEP_DONE);
    }

    Journal(Path stateDir, int keepDone) {
        this.keepDone = keepDone;
        this.dir = stateDir.resolve("journal");
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the journal " + dir, e);
        }
        this.watermark = readWatermark();
    }

    /** Records a job before it runs; false when this job id was seen before (it must not run again). */
    public synchronized boolean begin(String jid, byte[] job) {
        if (!safe(jid) || Files.exists(file(jid, "job")) || Files.exists(file(jid, "ret")) || Files.exists(file(jid, "done"))
                || forgotten(jid)) {
            return false;
        }
        DurableFiles.write(file(jid, "job"), job);
        return true;
    }

    /** Records a job's return before it is sent. */
    public synchronized void finish(String jid, byte[] ret) {
        DurableFiles.write(file(jid, "ret"), ret);
        delete(file(jid, "job"));
    }

    /** The server acknowledged the return: keep only the job id, to refuse a re-run. */
    public synchronized void acknowledged(String jid) {
        DurableFiles.write(file(jid, "done"), new byte[0]);
        delete(file(jid, "ret"));
    }

    /** Returns written but not acknowledged, oldest first: to send again on start. */
    public synchronized List<String> unsent() {
        return list(".ret");
    }

    /** Jobs that were running when the agent stopped. */
    public synchronized List<String> interrupted() {
        return list(".job");
    }

    public synchronized byte[] read(String jid, String kind) {
        try {
            return Files.readAllBytes(file(jid, kind));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Forgets the oldest acknowledged job ids beyond the newest ten thousand, raising the watermark past them. */
    public synchronized void prune() {
        List<String> done = list(".done");
        String newestForgotten = null;
        for (int i = 0; i < done.size() - keepDone; i++) {
            if (SALT_JID.matcher(done.get(i)).matches()) {
                newestForgotten = done.get(i);
            }
        }
        if (newestForgotten != null && (watermark == null || newestForgotten.compareTo(watermark) > 0)) {
            DurableFiles.write(dir.resolve(WATERMARK), newestForgotten.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            watermark = newestForgotten;
        }
        for (int i = 0; i < done.size() - keepDone; i++) {
            delete(file(done.get(i), "done"));
        }
    }

    /** A Salt jid at or below the watermark: seen long ago, or replayed. */
    private boolean forgotten(String jid) {
        return watermark != null && SALT_JID.matcher(jid).matches() && jid.compareTo(watermark) <= 0;
    }

    /** The watermark kept on disk; anything but a Salt jid there (a damaged file) counts as none, never as "refuse all". */
    private String readWatermark() {
        Path file = dir.resolve(WATERMARK);
        try {
            String mark = Files.exists(file) && Files.size(file) <= 64
                    ? Files.readString(file, java.nio.charset.StandardCharsets.ISO_8859_1).strip() : null;
            return mark != null && SALT_JID.matcher(mark).matches() ? mark : null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private List<String> list(String suffix) {
        // a directory stream and a loop, not Files.list: the stream pipeline's classes stay out of an idle agent
        List<String> jids = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path p : files) {
                String n = p.getFileName().toString();
                if (n.endsWith(suffix)) {
                    jids.add(n.substring(0, n.length() - suffix.length()));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (DirectoryIteratorException e) {
            throw new UncheckedIOException(e.getCause());
        }
        Collections.sort(jids);
        return jids;
    }

    private Path file(String jid, String kind) {
        return dir.resolve(jid + "." + kind);
    }

    /** Job ids become file names: only digits, letters, '_' and '-' (Salt jids are 20 digits). */
    static boolean safe(String jid) {
        return jid != null && jid.matches("[A-Za-z0-9_-]{1,64}");
    }

    private static void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
