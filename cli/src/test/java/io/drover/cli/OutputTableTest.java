package io.drover.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.cli.Output.Column;
import io.drover.model.jobs.JobSummary;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A table prints what the server stored without letting it steer the terminal. */
class OutputTableTest {
    @Test
    void controlAndFormatCharactersInCellsArePrintedAsQuestionMarks() {
        List<JobSummary> rows = List.of(new JobSummary("1", "test.ping", "web-*\u001b[2J\u202eevil\u0000\nnext\u2028", "glob",
                "admin", null, 1, Map.of()));
        String table = Output.table(rows, List.of(Column.of("ID", JobSummary::jid), Column.of("TARGET", JobSummary::tgt)));
        assertThat(table).contains("web-*?[2J?evil??next?");
        assertThat(table).doesNotContain("\u001b").doesNotContain("\u202e").doesNotContain("\u0000");
        assertThat(table.lines()).hasSize(2);
    }

    @Test
    void printableTextIsLeftAsItIs() {
        assertThat(Output.printable("web-* ü 中 ✓")).isEqualTo("web-* ü 中 ✓");
    }
}
