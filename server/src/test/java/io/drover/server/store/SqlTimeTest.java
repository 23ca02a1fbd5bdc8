package io.drover.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SqlTimeTest {
    @Test
    void whatFormatWritesParsesBackToTheSameInstantToTheMicrosecond() {
        Random random = new Random(11);
        for (int i = 0; i < 10_000; i++) {
            OffsetDateTime time = OffsetDateTime.of(1970, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC)
                    .plusSeconds(random.nextLong(0, 4_102_444_800L)).plusNanos(random.nextInt(1_000_000_000))
                    .withOffsetSameInstant(ZoneOffset.ofHours(random.nextInt(-12, 15)));
            String text = SqlTime.format(time);
            OffsetDateTime read = SqlTime.parse(text);
            assertThat(read).isEqualTo(OffsetDateTime.parse(text));
            assertThat(read.toInstant()).isEqualTo(time.toInstant().truncatedTo(ChronoUnit.MICROS));
        }
    }

    @Test
    void otherIsoTextIsReadByTheGeneralParserAndMalformedTextIsRefused() {
        assertThat(SqlTime.parse("2026-11-27T11:49:22+08:00")).isEqualTo(OffsetDateTime.parse("2026-11-27T11:49:22+08:00"));
        assertThat(SqlTime.parse("2026-11-27T11:49:22.987206123Z")).isEqualTo(OffsetDateTime.parse("2026-11-27T11:49:22.987206123Z"));
        // the fixed width, but not a time: each refused as the general parser refuses it, never read as another time
        for (String bad : new String[] {"2026-13-27T11:49:22.987206Z", "2026-02-30T11:49:22.987206Z", "2026-11-27T24:49:22.987206Z",
                "2026-11-27T11:49:2x.987206Z", "-026-11-27T11:49:22.987206Z", "2026-11-27T11:49:22.98720\u0660Z"}) {
            assertThatThrownBy(() -> SqlTime.parse(bad)).as(bad).isInstanceOf(java.time.DateTimeException.class);
        }
        assertThatThrownBy(() -> SqlTime.parse("")).isInstanceOf(DateTimeParseException.class);
    }
}
