package io.drover.core.diagnosis;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.time.zone.ZoneRules;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A cron trigger's schedule, read as Go's robfig/cron {@code ParseStandard} reads it (KubeDiag uses it): five fields
 * (minute hour day-of-month month day-of-week) or a descriptor ({@code @yearly}, {@code @annually}, {@code @monthly},
 * {@code @weekly}, {@code @daily}, {@code @midnight}, {@code @hourly}). A field is a list of {@code *} or {@code ?},
 * numbers, ranges {@code a-b}, and steps <code>&#42;/n</code>, {@code a-b/n}, {@code a/n} (from a to the maximum); months and
 * weekdays also by name (JAN-DEC, SUN-SAT, any case); day-of-week is 0-6, Sunday 0.
 * <p>
 * Days as robfig: when day-of-month or day-of-week holds a plain {@code *} or {@code ?} (no step, or step 1), a day
 * must match both (so the other field alone restricts); otherwise a day matches when either field matches. As in
 * robfig, <code>&#42;/2</code> counts as a restriction, not as a star.
 * <p>
 * Stricter than robfig, so that a typo fails instead of running at an unexpected time: empty list items, signs,
 * {@code *-5}, {@code @every} and the {@code CRON_TZ=} prefix (a trigger has its own time zone) are rejected. Against
 * hostile input an expression has at most {@value #MAX_LENGTH} characters and a field at most {@value #MAX_ITEMS}
 * items. Every problem is an {@link IllegalArgumentException} whose message names the field.
 */
public final class CronSchedule {
    public static final int MAX_LENGTH = 256;
    public static final int MAX_ITEMS = 64;
    /** How far {@link #next} looks, in calendar years after {@code after}'s year, as robfig (which returns zero time). */
    public static final int SEARCH_YEARS = 5;

    /**
     * The scheduled times t with {@code last < t <= now}: how many (at most maxMissed + 1), the newest counted (null
     * when none), and whether there were more than maxMissed (then {@code latest} is the last one counted, not the
     * newest: the caller treats it as KubeDiag does, "too many missed start time (> 100)").
     */
    public record Due(int missed, Instant latest, boolean tooMany) {
    }

    private enum Field {
        MINUTE("minute", 0, 59, null),
        HOUR("hour", 0, 23, null),
        DAY_OF_MONTH("day-of-month", 1, 31, null),
        MONTH("month", 1, 12, List.of("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")),
        DAY_OF_WEEK("day-of-week", 0, 6, List.of("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"));

        final String label;
        final int min;
        final int max;
        final List<String> names;

        Field(String label, int min, int max, List<String> names) {
            this.label = label;
            this.min = min;
            this.max = max;
            this.names = names;
        }
    }

    /** One field's values as bits (bit v set: v matches), and whether it held a plain star. */
    private record Values(long bits, boolean star) {
        boolean has(int value) {
            return (bits & (1L << value)) != 0;
        }
    }

    private final String expression;
    private final Values minutes;
    private final Values hours;
    private final Values days;
    private final Values months;
    private final Values weekdays;

    private CronSchedule(String expression, String[] fields) {
        this.expression = expression;
        this.minutes = values(Field.MINUTE, fields[0]);
        this.hours = values(Field.HOUR, fields[1]);
        this.days = values(Field.DAY_OF_MONTH, fields[2]);
        this.months = values(Field.MONTH, fields[3]);
        this.weekdays = values(Field.DAY_OF_WEEK, fields[4]);
    }

    public static CronSchedule parse(String expression) {
        if (expression == null) {
            throw new IllegalArgumentException("expression is missing");
        }
        if (expression.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("expression is " + expression.length() + " characters long, at most "
                    + MAX_LENGTH + " are allowed");
        }
        String text = expression.strip();
        if (text.isEmpty()) {
            throw new IllegalArgumentException("expression is empty");
        }
        if (text.startsWith("TZ=") || text.startsWith("CRON_TZ=")) {
            throw new IllegalArgumentException("a CRON_TZ= or TZ= prefix is not supported: give the trigger's timeZone instead");
        }
        if (text.startsWith("@")) {
            return new CronSchedule(expression, descriptor(text).split(" "));
        }
        String[] fields = text.split("\\s+");
        if (fields.length != 5) {
            throw new IllegalArgumentException("expected 5 fields (minute hour day-of-month month day-of-week), got " + fields.length);
        }
        return new CronSchedule(expression, fields);
    }

    private static String descriptor(String text) {
        return switch (text) {
            case "@yearly", "@annually" -> "0 0 1 1 *";
            case "@monthly" -> "0 0 1 * *";
            case "@weekly" -> "0 0 * * 0";
            case "@daily", "@midnight" -> "0 0 * * *";
            case "@hourly" -> "0 * * * *";
            default -> throw new IllegalArgumentException(text.startsWith("@every")
                    ? "@every is not supported: write the interval as 5 fields, e.g. */5 * * * *"
                    : "unknown descriptor " + quote(text) + " (expected @yearly, @annually, @monthly, @weekly, @daily, @midnight or @hourly)");
        };
    }

    private static Values values(Field field, String text) {
        String[] items = text.split(",", -1);
        if (items.length > MAX_ITEMS) {
            throw problem(field, items.length + " items in the list, at most " + MAX_ITEMS + " are allowed");
        }
        long bits = 0;
        boolean star = false;
        for (String item : items) {
            if (item.isEmpty()) {
                throw problem(field, "empty item in the list " + quote(text));
            }
            String[] rangeAndStep = item.split("/", -1);
            if (rangeAndStep.length > 2) {
                throw problem(field, quote(item) + " has more than one '/'");
            }
            int step = rangeAndStep.length == 2 ? step(field, rangeAndStep[1]) : 1;
            String range = rangeAndStep[0];
            int start;
            int end;
            if (range.equals("*") || range.equals("?")) {
                start = field.min;
                end = field.max;
                star |= step == 1;
            } else {
                String[] bounds = range.split("-", -1);
                if (bounds.length > 2) {
                    throw problem(field, quote(item) + " has more than one '-'");
                }
                start = value(field, bounds[0], item);
                end = bounds.length == 2 ? value(field, bounds[1], item) : rangeAndStep.length == 2 ? field.max : start;
                if (start > end) {
                    throw problem(field, "range " + range + " is reversed (" + start + " is after " + end + ")");
                }
            }
            for (long v = start; v <= end; v += step) {
                bits |= 1L << v;
            }
        }
        return new Values(bits, star);
    }

    private static int value(Field field, String text, String item) {
        if (field.names != null) {
            int named = field.names.indexOf(text.toUpperCase(Locale.ROOT));
            if (named >= 0) {
                return field.min + named;
            }
        }
        if (!digits(text)) {
            throw problem(field, quote(text.isEmpty() ? item : text) + " is not a number"
                    + (field.names == null ? "" : " or a name (" + field.names.get(0) + "-" + field.names.get(field.names.size() - 1) + ")"));
        }
        // Longer numbers are out of range anyway; this keeps them from overflowing.
        int value = text.length() > 9 ? Integer.MAX_VALUE : Integer.parseInt(text);
        if (value < field.min || value > field.max) {
            throw problem(field, text + " is out of range " + field.min + "-" + field.max);
        }
        return value;
    }

    private static int step(Field field, String text) {
        if (!digits(text)) {
            throw problem(field, "step " + quote(text) + " is not a number");
        }
        // A step beyond the field's width selects the start alone, as robfig: saturate rather than overflow.
        int step = text.length() > 9 ? Integer.MAX_VALUE : Integer.parseInt(text);
        if (step == 0) {
            throw problem(field, "step 0 is not allowed");
        }
        return step;
    }

    private static boolean digits(String text) {
        return !text.isEmpty() && text.chars().allMatch(c -> c >= '0' && c <= '9');
    }

    private static IllegalArgumentException problem(Field field, String message) {
        return new IllegalArgumentException(field.label + ": " + message);
    }

    /** The text in quotes, control and non-ASCII characters escaped, so that a hostile one does not reach a log as is. */
    private static String quote(String text) {
        StringBuilder quoted = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
                quoted.append(String.format("\\u%04x", (int) c));
            } else {
                quoted.append(c);
            }
        }
        return quoted.append('"').toString();
    }

    /**
     * The first scheduled minute strictly after {@code after} (its seconds and nanos dropped), in its zone; null when
     * there is none before the end of the {@value #SEARCH_YEARS}th year after {@code after}'s year (an impossible
     * schedule such as {@code 0 0 30 2 *}; also {@code 0 0 29 2 *} across 2100, which is not a leap year).
     * <p>
     * The schedule is in wall-clock time. A wall-clock time that does not exist (a DST gap) is skipped: the run happens at
     * the next matching time, e.g. {@code 30 2 * * *} does not run on the night clocks jump from 02:00 to 03:00. A
     * wall-clock time that happens twice (a DST overlap) runs once, at its first occurrence (the earlier offset).
     */
    public ZonedDateTime next(ZonedDateTime after) {
        ZonedDateTime from = after.truncatedTo(ChronoUnit.MINUTES);
        Instant bound = from.toInstant();
        ZoneId zone = after.getZone();
        ZoneRules rules = zone.getRules();
        LocalDateTime t = from.toLocalDateTime().plusMinutes(1);
        int lastYear = t.getYear() + SEARCH_YEARS;
        while (t.getYear() <= lastYear) {
            if (!months.has(t.getMonthValue())) {
                t = t.toLocalDate().withDayOfMonth(1).plusMonths(1).atStartOfDay();
            } else if (!dayMatches(t.toLocalDate())) {
                t = t.toLocalDate().plusDays(1).atStartOfDay();
            } else if (!hours.has(t.getHour())) {
                t = t.truncatedTo(ChronoUnit.HOURS).plusHours(1);
            } else if (!minutes.has(t.getMinute())) {
                t = t.plusMinutes(1);
            } else {
                if (!rules.getValidOffsets(t).isEmpty()) {
                    // ofLocal takes the earlier offset in an overlap; its instant is at or before the bound when
                    // after is in the overlap's second occurrence: keep looking.
                    ZonedDateTime candidate = ZonedDateTime.ofLocal(t, zone, null);
                    if (candidate.toInstant().isAfter(bound)) {
                        return candidate;
                    }
                }
                t = t.plusMinutes(1);
            }
        }
        return null;
    }

    private boolean dayMatches(LocalDate date) {
        boolean day = days.has(date.getDayOfMonth());
        boolean weekday = weekdays.has(date.getDayOfWeek() == DayOfWeek.SUNDAY ? 0 : date.getDayOfWeek().getValue());
        return days.star() || weekdays.star() ? day && weekday : day || weekday;
    }

    /**
     * The scheduled times t in {@code zone} with {@code last < t <= now}, found with {@link #next} one after the other
     * and counted up to {@code maxMissed + 1} at most, as KubeDiag's cron trigger does.
     */
    public Due due(Instant last, Instant now, ZoneId zone, int maxMissed) {
        Objects.requireNonNull(last, "last");
        Objects.requireNonNull(now, "now");
        if (maxMissed < 0) {
            throw new IllegalArgumentException("maxMissed: " + maxMissed + " is negative");
        }
        int missed = 0;
        Instant latest = null;
        for (ZonedDateTime t = next(last.atZone(zone)); t != null && !t.toInstant().isAfter(now); t = next(t)) {
            missed++;
            latest = t.toInstant();
            if (missed > maxMissed) {
                return new Due(missed, latest, true);
            }
        }
        return new Due(missed, latest, false);
    }

    @Override
    public String toString() {
        return expression;
    }
}
