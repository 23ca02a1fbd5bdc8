package io.drover.core.diagnosis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.time.zone.ZoneOffsetTransition;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Cron schedules as robfig/cron's ParseStandard reads them, and when they run. */
class CronScheduleTest {
    /** A Wednesday. */
    private static final String WEDNESDAY = "2025-01-15T10:07:30Z";

    record Case(String expression, String after, List<String> expected) {
        @Override
        public String toString() {
            return "'" + expression + "' after " + after;
        }
    }

    private static Case runs(String expression, String after, String... expected) {
        return new Case(expression, after, List.of(expected));
    }

    static Stream<Case> schedules() {
        return Stream.of(
                // each field's syntax
                runs("* * * * *", WEDNESDAY, "2025-01-15T10:08Z", "2025-01-15T10:09Z"),
                runs("? ? ? ? ?", WEDNESDAY, "2025-01-15T10:08Z", "2025-01-15T10:09Z"),
                runs("5 * * * *", WEDNESDAY, "2025-01-15T11:05Z", "2025-01-15T12:05Z"),
                runs("05 * * * *", WEDNESDAY, "2025-01-15T11:05Z"),
                runs("10-12 * * * *", WEDNESDAY, "2025-01-15T10:10Z", "2025-01-15T10:11Z", "2025-01-15T10:12Z", "2025-01-15T11:10Z"),
                runs("*/20 * * * *", WEDNESDAY, "2025-01-15T10:20Z", "2025-01-15T10:40Z", "2025-01-15T11:00Z"),
                runs("10-40/15 * * * *", WEDNESDAY, "2025-01-15T10:10Z", "2025-01-15T10:25Z", "2025-01-15T10:40Z", "2025-01-15T11:10Z"),
                runs("50/5 * * * *", WEDNESDAY, "2025-01-15T10:50Z", "2025-01-15T10:55Z", "2025-01-15T11:50Z"),
                runs("1,30,59 * * * *", WEDNESDAY, "2025-01-15T10:30Z", "2025-01-15T10:59Z", "2025-01-15T11:01Z"),
                runs("*/100 * * * *", WEDNESDAY, "2025-01-15T11:00Z", "2025-01-15T12:00Z"),
                runs("0 1-3,*/12 * * *", WEDNESDAY, "2025-01-15T12:00Z", "2025-01-16T00:00Z", "2025-01-16T01:00Z", "2025-01-16T02:00Z",
                        "2025-01-16T03:00Z", "2025-01-16T12:00Z"),
                runs("30 9 * * *", WEDNESDAY, "2025-01-16T09:30Z", "2025-01-17T09:30Z"),
                runs("0 0 1,15 * *", WEDNESDAY, "2025-02-01T00:00Z", "2025-02-15T00:00Z"),
                runs("0 0 1 2 *", WEDNESDAY, "2025-02-01T00:00Z", "2026-02-01T00:00Z"),
                runs("0 8 * * 0", WEDNESDAY, "2025-01-19T08:00Z", "2025-01-26T08:00Z"),
                runs("0 8 * * */3", WEDNESDAY, "2025-01-18T08:00Z", "2025-01-19T08:00Z", "2025-01-22T08:00Z"),
                runs("0 8 * * 5/1", WEDNESDAY, "2025-01-17T08:00Z", "2025-01-18T08:00Z", "2025-01-24T08:00Z"),
                // names, any case, in lists, ranges and steps
                runs("0 0 1 JUN,dec *", WEDNESDAY, "2025-06-01T00:00Z", "2025-12-01T00:00Z", "2026-06-01T00:00Z"),
                runs("0 0 1 jan-MAR/2 *", WEDNESDAY, "2025-03-01T00:00Z", "2026-01-01T00:00Z"),
                runs("0 0 1 Nov/1 *", WEDNESDAY, "2025-11-01T00:00Z", "2025-12-01T00:00Z", "2026-11-01T00:00Z"),
                runs("0 8 * * MON-FRI", WEDNESDAY, "2025-01-16T08:00Z", "2025-01-17T08:00Z", "2025-01-20T08:00Z"),
                runs("0 8 * * sat,Sun", WEDNESDAY, "2025-01-18T08:00Z", "2025-01-19T08:00Z", "2025-01-25T08:00Z"),
                // descriptors, each as its 5 fields
                runs("@yearly", WEDNESDAY, "2026-01-01T00:00Z", "2027-01-01T00:00Z"),
                runs("@annually", WEDNESDAY, "2026-01-01T00:00Z"),
                runs("@monthly", WEDNESDAY, "2025-02-01T00:00Z", "2025-03-01T00:00Z"),
                runs("@weekly", WEDNESDAY, "2025-01-19T00:00Z", "2025-01-26T00:00Z"),
                runs("@daily", WEDNESDAY, "2025-01-16T00:00Z", "2025-01-17T00:00Z"),
                runs("@midnight", WEDNESDAY, "2025-01-16T00:00Z"),
                runs("@hourly", WEDNESDAY, "2025-01-15T11:00Z", "2025-01-15T12:00Z"),
                // day-of-month and day-of-week: a star in one leaves the other alone; both restricted: either matches
                runs("0 0 13 * *", WEDNESDAY, "2025-02-13T00:00Z", "2025-03-13T00:00Z"),
                runs("0 0 ? * FRI", WEDNESDAY, "2025-01-17T00:00Z", "2025-01-24T00:00Z"),
                runs("0 0 13 * FRI", WEDNESDAY, "2025-01-17T00:00Z", "2025-01-24T00:00Z", "2025-01-31T00:00Z", "2025-02-07T00:00Z",
                        "2025-02-13T00:00Z", "2025-02-14T00:00Z"),
                runs("0 0 13 * ?", WEDNESDAY, "2025-02-13T00:00Z"),
                // robfig: */n (n > 1) is a restriction, */1 is a star
                runs("0 0 */10 * 1", WEDNESDAY, "2025-01-20T00:00Z", "2025-01-21T00:00Z", "2025-01-27T00:00Z", "2025-01-31T00:00Z",
                        "2025-02-01T00:00Z", "2025-02-03T00:00Z"),
                runs("0 0 */1 * MON", WEDNESDAY, "2025-01-20T00:00Z", "2025-01-27T00:00Z"),
                runs("0 0 1,* * MON", WEDNESDAY, "2025-01-20T00:00Z", "2025-01-27T00:00Z"),
                // strictly after, seconds dropped
                runs("8 10 * * *", "2025-01-15T10:08:00Z", "2025-01-16T10:08Z"),
                runs("8 10 * * *", "2025-01-15T10:07:59.999999999Z", "2025-01-15T10:08Z"),
                runs("8 10 * * *", "2025-01-15T10:08:59.5Z", "2025-01-16T10:08Z"),
                // hour, day, month and year rollover
                runs("0 0 * * *", "2025-01-31T23:59Z", "2025-02-01T00:00Z"),
                runs("59 23 31 12 *", "2025-12-31T23:59Z", "2026-12-31T23:59Z"),
                runs("0 0 31 * *", "2025-01-31T00:00Z", "2025-03-31T00:00Z", "2025-05-31T00:00Z", "2025-07-31T00:00Z", "2025-08-31T00:00Z"),
                runs("0 0 29 2 *", WEDNESDAY, "2028-02-29T00:00Z", "2032-02-29T00:00Z"),
                runs("0 0 29 2 *", "2024-02-28T23:59Z", "2024-02-29T00:00Z", "2028-02-29T00:00Z"),
                runs("  0\t9  * * *  ", WEDNESDAY, "2025-01-16T09:00Z"),
                // a time zone: the same Friday morning in Shanghai and in UTC
                runs("0 9 * * MON-FRI", "2025-01-17T10:00+08:00[Asia/Shanghai]", "2025-01-20T09:00+08:00[Asia/Shanghai]"),
                runs("0 9 * * MON-FRI", "2025-01-17T02:00Z", "2025-01-17T09:00Z", "2025-01-20T09:00Z"),
                runs("0 0 1 * *", "2025-01-31T20:00Z[UTC]", "2025-02-01T00:00Z[UTC]"),
                runs("0 0 1 * *", "2025-02-01T04:00+08:00[Asia/Shanghai]", "2025-03-01T00:00+08:00[Asia/Shanghai]"),
                // DST in Berlin: 02:00-03:00 does not exist on 2025-03-30 (skipped) and happens twice on 2025-10-26 (once)
                runs("30 2 * * *", "2025-03-29T12:00+01:00[Europe/Berlin]", "2025-03-31T02:30+02:00[Europe/Berlin]"),
                runs("0,30 * * * *", "2025-03-30T01:40+01:00[Europe/Berlin]", "2025-03-30T03:00+02:00[Europe/Berlin]",
                        "2025-03-30T03:30+02:00[Europe/Berlin]"),
                runs("30 2 * * *", "2025-10-26T00:00+02:00[Europe/Berlin]", "2025-10-26T02:30+02:00[Europe/Berlin]",
                        "2025-10-27T02:30+01:00[Europe/Berlin]"),
                runs("0,30 * * * *", "2025-10-26T01:50+02:00[Europe/Berlin]", "2025-10-26T02:00+02:00[Europe/Berlin]",
                        "2025-10-26T02:30+02:00[Europe/Berlin]", "2025-10-26T03:00+01:00[Europe/Berlin]"),
                runs("0,30 * * * *", "2025-10-26T02:10+01:00[Europe/Berlin]", "2025-10-26T03:00+01:00[Europe/Berlin]"),
                runs("0 9 * * *", "2025-03-29T09:00+01:00[Europe/Berlin]", "2025-03-30T09:00+02:00[Europe/Berlin]"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("schedules")
    void nextRunsAreTheMatchingMinutesInTheZoneOfAfter(Case c) {
        CronSchedule schedule = CronSchedule.parse(c.expression());
        List<ZonedDateTime> runs = new ArrayList<>();
        ZonedDateTime t = ZonedDateTime.parse(c.after());
        for (int i = 0; i < c.expected().size(); i++) {
            t = schedule.next(t);
            runs.add(t);
        }
        assertThat(runs).isEqualTo(c.expected().stream().map(ZonedDateTime::parse).toList());
        assertThat(schedule).hasToString(c.expression());
    }

    static Stream<Arguments> impossible() {
        return Stream.of(
                Arguments.of("0 0 30 2 *", WEDNESDAY),
                Arguments.of("0 0 31 4,6,9,11 *", WEDNESDAY),
                Arguments.of("* * 30,31 feb *", "2025-01-15T10:07:30+08:00[Asia/Shanghai]"),
                // the 2100 gap between leap days is longer than the search
                Arguments.of("0 0 29 2 *", "2096-03-01T00:00Z"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("impossible")
    void aScheduleWithoutRunsInFiveYearsHasNoNext(String expression, String after) {
        long start = System.nanoTime();
        assertThat(CronSchedule.parse(expression).next(ZonedDateTime.parse(after))).isNull();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
    }

    @Test
    void theLastRunOfTheSearchIsFound() {
        assertThat(CronSchedule.parse("0 0 29 2 *").next(ZonedDateTime.parse("2099-03-01T00:00Z")))
                .isEqualTo(ZonedDateTime.parse("2104-02-29T00:00Z"));
    }

    static Stream<Arguments> invalid() {
        String fields = "expected 5 fields (minute hour day-of-month month day-of-week), got ";
        return Stream.of(
                Arguments.of(null, "expression is missing"),
                Arguments.of("", "expression is empty"),
                Arguments.of(" \t ", "expression is empty"),
                Arguments.of("* * *", fields + "3"),
                Arguments.of("0 * * * * *", fields + "6"),
                Arguments.of("0\u0000*\u0000*\u0000*\u0000*", fields + "1"),
                Arguments.of("61 * * * *", "minute: 61 is out of range 0-59"),
                Arguments.of("99999999999 * * * *", "minute: 99999999999 is out of range 0-59"),
                Arguments.of("* 24 * * *", "hour: 24 is out of range 0-23"),
                Arguments.of("* * 0 * *", "day-of-month: 0 is out of range 1-31"),
                Arguments.of("* * 32 * *", "day-of-month: 32 is out of range 1-31"),
                Arguments.of("* * * 0 *", "month: 0 is out of range 1-12"),
                Arguments.of("* * * 13 *", "month: 13 is out of range 1-12"),
                Arguments.of("* * * * 7", "day-of-week: 7 is out of range 0-6"),
                Arguments.of("* * * * 1-7", "day-of-week: 7 is out of range 0-6"),
                Arguments.of("*/0 * * * *", "minute: step 0 is not allowed"),
                Arguments.of("* * * * */0", "day-of-week: step 0 is not allowed"),
                Arguments.of("* 1-5/00 * * *", "hour: step 0 is not allowed"),
                Arguments.of("*/x * * * *", "minute: step \"x\" is not a number"),
                Arguments.of("*/ * * * *", "minute: step \"\" is not a number"),
                Arguments.of("*/-1 * * * *", "minute: step \"-1\" is not a number"),
                Arguments.of("1/2/3 * * * *", "minute: \"1/2/3\" has more than one '/'"),
                Arguments.of("1-2-3 * * * *", "minute: \"1-2-3\" has more than one '-'"),
                Arguments.of("* * 5-1 * *", "day-of-month: range 5-1 is reversed (5 is after 1)"),
                Arguments.of("* * * * FRI-MON", "day-of-week: range FRI-MON is reversed (5 is after 1)"),
                Arguments.of("abc * * * *", "minute: \"abc\" is not a number"),
                Arguments.of("* JAN * * *", "hour: \"JAN\" is not a number"),
                Arguments.of("* * * FOO *", "month: \"FOO\" is not a number or a name (JAN-DEC)"),
                Arguments.of("* * * * MONDAY", "day-of-week: \"MONDAY\" is not a number or a name (SUN-SAT)"),
                Arguments.of("-5 * * * *", "minute: \"-5\" is not a number"),
                Arguments.of("+5 * * * *", "minute: \"+5\" is not a number"),
                Arguments.of("*-5 * * * *", "minute: \"*\" is not a number"),
                Arguments.of("\uff15 * * * *", "minute: \"\\uff15\" is not a number"),
                Arguments.of("0\u0000 * * * *", "minute: \"0\\u0000\" is not a number"),
                Arguments.of("1,,2 * * * *", "minute: empty item in the list \"1,,2\""),
                Arguments.of("* * * 1, *", "month: empty item in the list \"1,\""),
                Arguments.of("0".repeat(300), "expression is 300 characters long, at most 256 are allowed"),
                Arguments.of("0 0 * * " + "1,".repeat(146) + "1", "expression is 301 characters long, at most 256 are allowed"),
                Arguments.of(String.join(",", Collections.nCopies(1000, "1")) + " * * * *",
                        "expression is 2007 characters long, at most 256 are allowed"),
                Arguments.of(String.join(",", Collections.nCopies(65, "1")) + " * * * *", "minute: 65 items in the list, at most 64 are allowed"),
                Arguments.of("@every 5m", "@every is not supported: write the interval as 5 fields, e.g. */5 * * * *"),
                Arguments.of("@fortnightly", "unknown descriptor \"@fortnightly\" (expected @yearly, @annually, @monthly, @weekly, "
                        + "@daily, @midnight or @hourly)"),
                Arguments.of("@daily 0", "unknown descriptor \"@daily 0\" (expected @yearly, @annually, @monthly, @weekly, "
                        + "@daily, @midnight or @hourly)"),
                Arguments.of("CRON_TZ=UTC 0 * * * *", "a CRON_TZ= or TZ= prefix is not supported: give the trigger's timeZone instead"));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("invalid")
    void anInvalidExpressionIsRejectedNamingTheFieldAndTheProblem(String expression, String message) {
        assertThatThrownBy(() -> CronSchedule.parse(expression)).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }

    @Test
    void theLimitsThemselvesAreAllowed() {
        String list = String.join(",", Collections.nCopies(64, "1"));
        assertThat(CronSchedule.parse(list + " * * * *").next(ZonedDateTime.parse(WEDNESDAY)))
                .isEqualTo(ZonedDateTime.parse("2025-01-15T11:01Z"));
        String longest = "0 0 * *" + " ".repeat(CronSchedule.MAX_LENGTH - 10) + "MON";
        assertThat(longest).hasSize(CronSchedule.MAX_LENGTH);
        assertThat(CronSchedule.parse(longest).next(ZonedDateTime.parse(WEDNESDAY))).isEqualTo(ZonedDateTime.parse("2025-01-20T00:00Z"));
    }

    static Stream<Arguments> dues() {
        return Stream.of(
                Arguments.of("0 * * * *", "2025-01-15T10:00:00Z", "2025-01-15T10:30:00Z", "UTC", 100, new CronSchedule.Due(0, null, false)),
                Arguments.of("0 * * * *", "2025-01-15T10:00:00Z", "2025-01-15T11:00:00Z", "UTC", 100,
                        new CronSchedule.Due(1, Instant.parse("2025-01-15T11:00:00Z"), false)),
                Arguments.of("0 * * * *", "2025-01-15T11:00:00Z", "2025-01-15T11:00:00Z", "UTC", 100, new CronSchedule.Due(0, null, false)),
                Arguments.of("0 * * * *", "2025-01-15T11:00:00Z", "2025-01-15T10:00:00Z", "UTC", 100, new CronSchedule.Due(0, null, false)),
                Arguments.of("*/15 * * * *", "2025-01-15T10:00:00Z", "2025-01-15T11:05:00Z", "UTC", 100,
                        new CronSchedule.Due(4, Instant.parse("2025-01-15T11:00:00Z"), false)),
                Arguments.of("0 9 * * *", "2025-01-15T00:00:00Z", "2025-01-15T12:00:00Z", "Asia/Shanghai", 100,
                        new CronSchedule.Due(1, Instant.parse("2025-01-15T01:00:00Z"), false)),
                Arguments.of("0 9 * * *", "2025-01-15T00:00:00Z", "2025-01-15T12:00:00Z", "UTC", 100,
                        new CronSchedule.Due(1, Instant.parse("2025-01-15T09:00:00Z"), false)),
                Arguments.of("* * * * *", "2025-01-15T10:00:00Z", "2025-01-15T11:40:00Z", "UTC", 100,
                        new CronSchedule.Due(100, Instant.parse("2025-01-15T11:40:00Z"), false)),
                Arguments.of("* * * * *", "2025-01-15T10:00:00Z", "2025-01-15T13:00:00Z", "UTC", 100,
                        new CronSchedule.Due(101, Instant.parse("2025-01-15T11:41:00Z"), true)),
                Arguments.of("* * * * *", "2000-01-01T00:00:00Z", "2025-01-15T13:00:00Z", "UTC", 100,
                        new CronSchedule.Due(101, Instant.parse("2000-01-01T01:41:00Z"), true)),
                Arguments.of("0 * * * *", "2025-01-15T10:00:00Z", "2025-01-15T11:00:00Z", "UTC", 0,
                        new CronSchedule.Due(1, Instant.parse("2025-01-15T11:00:00Z"), true)),
                Arguments.of("0 0 30 2 *", "2000-01-01T00:00:00Z", "2025-01-15T13:00:00Z", "UTC", 100, new CronSchedule.Due(0, null, false)),
                // 02:30 on the night Berlin falls back happens twice and is due once
                Arguments.of("30 * * * *", "2025-10-26T00:00:00Z", "2025-10-26T02:00:00Z", "Europe/Berlin", 100,
                        new CronSchedule.Due(1, Instant.parse("2025-10-26T00:30:00Z"), false)));
    }

    @ParameterizedTest(name = "{0} from {1} to {2} in {3}, max {4}")
    @MethodSource("dues")
    void dueCountsTheRunsMissedSinceTheLastOne(String expression, String last, String now, String zone, int maxMissed,
                                               CronSchedule.Due expected) {
        assertThat(CronSchedule.parse(expression).due(Instant.parse(last), Instant.parse(now), ZoneId.of(zone), maxMissed))
                .isEqualTo(expected);
    }

    @Test
    void aNegativeMaximumIsRejected() {
        assertThatThrownBy(() -> CronSchedule.parse("* * * * *").due(Instant.EPOCH, Instant.EPOCH, ZoneOffset.UTC, -1))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("maxMissed: -1 is negative");
    }

    /** A random field's text together with the values it means, built independently of the parser. */
    private record Generated(String text, boolean[] values, boolean star) {
    }

    private static final List<String> MONTHS = List.of("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC");
    private static final List<String> WEEKDAYS = List.of("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT");

    private static Generated field(Random random, int min, int max, List<String> names) {
        boolean[] values = new boolean[max + 1];
        boolean star = false;
        List<String> items = new ArrayList<>();
        int count = 1 + random.nextInt(random.nextInt(4) == 0 ? 4 : 1);
        for (int i = 0; i < count; i++) {
            int a = min + random.nextInt(max - min + 1);
            int b = min + random.nextInt(max - min + 1);
            int low = Math.min(a, b);
            int high = Math.max(a, b);
            int step = 1 + random.nextInt(max - min + 2);
            String item;
            int from;
            int to;
            int by = 1;
            switch (random.nextInt(7)) {
                case 0 -> {
                    item = random.nextBoolean() ? "*" : "?";
                    from = min;
                    to = max;
                    star = true;
                }
                case 1 -> {
                    item = "*/" + step;
                    from = min;
                    to = max;
                    by = step;
                    star |= step == 1;
                }
                case 2 -> {
                    item = name(random, a, min, names);
                    from = a;
                    to = a;
                }
                case 3 -> {
                    item = name(random, low, min, names) + "-" + name(random, high, min, names);
                    from = low;
                    to = high;
                }
                case 4 -> {
                    item = name(random, low, min, names) + "-" + name(random, high, min, names) + "/" + step;
                    from = low;
                    to = high;
                    by = step;
                }
                case 5 -> {
                    item = name(random, a, min, names) + "/" + step;
                    from = a;
                    to = max;
                    by = step;
                }
                default -> {
                    item = String.valueOf(a);
                    from = a;
                    to = a;
                }
            }
            for (int v = from; v <= to; v += by) {
                values[v] = true;
            }
            items.add(item);
        }
        return new Generated(String.join(",", items), values, star);
    }

    private static String name(Random random, int value, int min, List<String> names) {
        if (names == null || random.nextInt(3) != 0) {
            return String.valueOf(value);
        }
        String name = names.get(value - min);
        return random.nextBoolean() ? name : name.toLowerCase();
    }

    private static Generated star() {
        return new Generated("*", null, true);
    }

    private static boolean has(Generated field, int value) {
        return field.values() == null || field.values()[value];
    }

    private static boolean matches(Generated[] fields, LocalDateTime t) {
        boolean day = has(fields[2], t.getDayOfMonth());
        boolean weekday = has(fields[4], t.getDayOfWeek().getValue() % 7);
        boolean days = fields[2].star() || fields[4].star() ? day && weekday : day || weekday;
        return has(fields[0], t.getMinute()) && has(fields[1], t.getHour()) && has(fields[3], t.getMonthValue()) && days;
    }

    @Test
    void nextAgreesWithAMinuteByMinuteMatcherOnRandomSchedules() {
        Random random = new Random(20250115);
        List<ZoneId> zones = Stream.of("UTC", "Europe/Berlin", "Asia/Shanghai", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata")
                .map(ZoneId::of).toList();
        Instant from = Instant.parse("2024-01-01T00:00:00Z");
        int matched = 0;
        for (int n = 0; n < 200; n++) {
            Generated[] fields = {
                    field(random, 0, 59, null),
                    field(random, 0, 23, null),
                    random.nextBoolean() ? star() : field(random, 1, 31, null),
                    random.nextInt(3) != 0 ? star() : field(random, 1, 12, MONTHS),
                    random.nextBoolean() ? star() : field(random, 0, 6, WEEKDAYS)};
            String expression = String.join(" ", Arrays.stream(fields).map(Generated::text).toList());
            ZoneId zone = zones.get(random.nextInt(zones.size()));
            Instant start = from.plusSeconds(random.nextInt(3 * 365 * 86_400));
            ZoneOffsetTransition transition = zone.getRules().nextTransition(start);
            if (random.nextBoolean() && transition != null) {
                start = transition.getInstant().minusSeconds(random.nextInt(2 * 86_400));
            }
            Instant end = start.plus(Duration.ofDays(3));

            List<Instant> expected = new ArrayList<>();
            for (Instant t = start.truncatedTo(ChronoUnit.MINUTES).plusSeconds(60); !t.isAfter(end); t = t.plusSeconds(60)) {
                LocalDateTime local = LocalDateTime.ofInstant(t, zone);
                // a wall-clock time that happens twice runs at its first occurrence only
                if (matches(fields, local) && zone.getRules().getValidOffsets(local).get(0).equals(zone.getRules().getOffset(t))) {
                    expected.add(t);
                }
            }

            CronSchedule schedule = CronSchedule.parse(expression);
            List<Instant> actual = new ArrayList<>();
            ZonedDateTime t = schedule.next(start.atZone(zone));
            while (t != null && !t.toInstant().isAfter(end)) {
                assertThat(t.getZone()).isEqualTo(zone);
                actual.add(t.toInstant());
                t = schedule.next(t);
            }
            assertThat(actual).as("'%s' in %s from %s", expression, zone, start).isEqualTo(expected);
            matched += expected.isEmpty() ? 0 : 1;
        }
        assertThat(matched).as("schedules that ran in their window").isGreaterThan(50);
    }
}
