package io.drover.core.packages;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A semver constraint as dependencies and {@code system.drover} write them: terms joined by commas or spaces (all
 * must hold), alternatives joined by {@code ||}. Operators {@code = == != > >= < <= ~ ~> ^}; a bare version means
 * {@code =}; {@code x}, {@code X}, {@code *} and missing parts are wildcards ({@code 1.2} = {@code >=1.2.0 <1.3.0});
 * a leading {@code v} is ignored. The empty constraint allows every version.
 *
 * <p>Pre-releases are compared by plain semver precedence, as KubeVela's addon checks do: {@code 1.4.0-beta.1}
 * satisfies {@code >=1.3.0} and {@code 1.5.0-rc.2} does not satisfy {@code >=1.5.0}. (npm-style ranges, which exclude
 * pre-releases of other versions, disagree with KubeVela's own test vectors.)
 */
public final class VersionConstraint {
    private static final Pattern TERM = Pattern.compile(
            "(!=|==|>=|<=|~>|=|>|<|~|\\^)?\\s*v?(\\*|[xX]|\\d+)(?:\\.(\\*|[xX]|\\d+))?(?:\\.(\\*|[xX]|\\d+))?"
                    + "(?:-([0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*))?(?:\\+[0-9A-Za-z.-]+)?");
    private static final VersionConstraint ANY = new VersionConstraint("", List.of());

    private final String text;
    private final List<List<Predicate<Version>>> alternatives;

    private VersionConstraint(String text, List<List<Predicate<Version>>> alternatives) {
        this.text = text;
        this.alternatives = alternatives;
    }

    public static VersionConstraint any() {
        return ANY;
    }

    /** Parses a constraint or throws a {@link PackageException} quoting it and saying where it stopped making sense. */
    public static VersionConstraint parse(String text) {
        if (text == null || text.isBlank()) {
            return ANY;
        }
        List<List<Predicate<Version>>> alternatives = new ArrayList<>();
        for (String group : text.split("\\|\\|", -1)) {
            List<Predicate<Version>> terms = new ArrayList<>();
            Matcher m = TERM.matcher(group);
            int at = 0;
            while (true) {
                while (at < group.length() && (group.charAt(at) == ',' || Character.isWhitespace(group.charAt(at)))) {
                    at++;
                }
                if (at == group.length()) {
                    break;
                }
                m.region(at, group.length());
                if (!m.lookingAt()) {
                    throw new PackageException("invalid version constraint '" + text + "': cannot read '"
                            + group.substring(at).strip() + "'");
                }
                int end = m.end();
                if (end < group.length() && !(group.charAt(end) == ',' || Character.isWhitespace(group.charAt(end)))) {
                    throw new PackageException("invalid version constraint '" + text + "': cannot read '"
                            + group.substring(at).strip() + "'");
                }
                terms.add(term(m));
                at = end;
            }
            if (terms.isEmpty()) {
                throw new PackageException("invalid version constraint '" + text + "': an alternative is empty");
            }
            alternatives.add(List.copyOf(terms));
        }
        return new VersionConstraint(text.strip(), List.copyOf(alternatives));
    }

    public boolean isAny() {
        return alternatives.isEmpty();
    }

    public boolean allows(Version version) {
        if (alternatives.isEmpty()) {
            return true;
        }
        for (List<Predicate<Version>> terms : alternatives) {
            boolean all = true;
            for (Predicate<Version> term : terms) {
                if (!term.test(version)) {
                    all = false;
                    break;
                }
            }
            if (all) {
                return true;
            }
        }
        return false;
    }

    /** True when any term names a pre-release (then a pre-release may be chosen to satisfy it). */
    public boolean mentionsPrerelease() {
        return text.matches(".*\\d-[0-9A-Za-z].*");
    }

    private static Predicate<Version> term(Matcher m) {
        String op = m.group(1) == null ? "=" : m.group(1);
        String[] parts = {m.group(2), m.group(3), m.group(4)};
        int fixed = 0;
        while (fixed < 3 && parts[fixed] != null && !isWildcard(parts[fixed])) {
            fixed++;
        }
        for (int i = fixed; i < 3; i++) {
            if (parts[i] != null && !isWildcard(parts[i])) {
                throw new PackageException("invalid version constraint: a number follows a wildcard in '" + m.group() + "'");
            }
        }
        String prerelease = m.group(5) == null ? "" : m.group(5);
        long major = fixed > 0 ? Long.parseLong(parts[0]) : 0;
        long minor = fixed > 1 ? Long.parseLong(parts[1]) : 0;
        long patch = fixed > 2 ? Long.parseLong(parts[2]) : 0;
        Version low = Version.parse(major + "." + minor + "." + patch + (prerelease.isEmpty() ? "" : "-" + prerelease));
        if (fixed == 0) {
            return v -> !op.equals("!=") && !op.equals("<") && !op.equals(">");
        }
        Version nextUp = fixed == 1 ? Version.of(major + 1, 0, 0) : fixed == 2 ? Version.of(major, minor + 1, 0) : null;
        return switch (op) {
            case "=", "==" -> nextUp == null ? v -> v.comparePrecedence(low) == 0 : inRange(low, nextUp);
            case "!=" -> nextUp == null ? v -> v.comparePrecedence(low) != 0 : inRange(low, nextUp).negate();
            case ">" -> nextUp == null ? v -> v.comparePrecedence(low) > 0 : v -> v.comparePrecedence(nextUp) >= 0;
            case ">=" -> v -> v.comparePrecedence(low) >= 0;
            case "<" -> v -> v.comparePrecedence(low) < 0;
            case "<=" -> nextUp == null ? v -> v.comparePrecedence(low) <= 0 : v -> v.comparePrecedence(nextUp) < 0;
            case "~", "~>" -> inRange(low, fixed == 1 ? Version.of(major + 1, 0, 0) : Version.of(major, minor + 1, 0));
            case "^" -> inRange(low, major > 0 || fixed == 1 ? Version.of(major + 1, 0, 0)
                    : minor > 0 || fixed == 2 ? Version.of(0, minor + 1, 0) : Version.of(0, 0, patch + 1));
            default -> throw new IllegalStateException(op);
        };
    }

    private static Predicate<Version> inRange(Version low, Version high) {
        return v -> v.comparePrecedence(low) >= 0 && v.comparePrecedence(high) < 0;
    }

    private static boolean isWildcard(String part) {
        return part.equals("*") || part.equalsIgnoreCase("x");
    }

    @Override
    public String toString() {
        return text;
    }
}
