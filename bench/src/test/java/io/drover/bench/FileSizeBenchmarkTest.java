package io.drover.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SQLite file stops growing once the retention window is full: 7 simulated days of jobs, returns, events and
 * audit entries (fewer agents than the benchmark's figures) with events and jobs kept 2 days, pruned hourly by the
 * server's Retention.
 */
class FileSizeBenchmarkTest {
    @TempDir
    Path dir;

    @Test
    void theFilePlateausAfterTheRetentionWindow() {
        List<FileSizeBenchmark.Day> days = FileSizeBenchmark.simulate(new FileSizeBenchmark.Traffic(60, 10, 7, 2), dir,
                day -> System.out.println("file size " + day));
        FileSizeBenchmark.Day window = days.get(2); // the end of day 3: two days kept, one pruned
        // 60 agents × 6 jobs an hour × 48 hours kept (plus up to an hour not yet pruned)
        long keptReturns = 60L * 6 * 48;
        for (FileSizeBenchmark.Day day : days.subList(2, days.size())) {
            assertThat(day.returns()).as("returns kept at the end of day %d", day.day()).isBetween(keptReturns, keptReturns + 60 * 6);
            assertThat(day.totalBytes()).as("the file at the end of day %d against day 3", day.day())
                    .isLessThanOrEqualTo(window.totalBytes() + window.totalBytes() / 10);
        }
        // without pruning the file would hold 7 days' rows: it holds under half of that
        assertThat(days.getLast().dbBytes()).isLessThan(days.get(1).dbBytes() * 7 / 2 / 2 + (4L << 20));
    }
}
