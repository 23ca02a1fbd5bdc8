package io.drover.core.match;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Salt's minion targeting, parsed once and matched against many minions: glob, pcre (anchored at the start),
 * list, grain, grain_pcre, ipcidr, compound and nodegroup.
 * <p>
 * Grain expressions follow Salt's {@code subdict_match}: {@code key:sub:value}, trying every split between key
 * path and value, matching case-insensitively; a list grain matches when any element does. A compound
 * expression joins {@code G@ P@ E@ L@ S@ N@} words and bare id globs with {@code and}, {@code or}, {@code not}
 * and parentheses (precedence not, and, or); two matches without an operator are an error, as in Salt, except
 * before {@code not}, which implies {@code and}.
 */
public final class TargetExpression {
    public static final List<String> TYPES = List.of("glob", "pcre", "list", "grain", "grain_pcre", "ipcidr",
            "compound", "nodegroup");

    private final Predicate<MinionView> predicate;

    private TargetExpression(Predicate<MinionView> predicate) {
        this.predicate = predicate;
    }

    public boolean matches(MinionView minion) {
        return predicate.test(minion);
    }

    /** Parses a target; {@code nodegroups} maps names to compound expressions. */
    public static TargetExpression parse(String type, Object tgt, Map<String, String> nodegroups) {
        return new TargetExpression(predicate(type == null ? "glob" : type, tgt, nodegroups, new HashSet<>()));
    }

    private static Predicate<MinionView> predicate(String type, Object tgt, Map<String, String> nodegroups, Set<String> expanding) {
        if (type.equals("list")) {
            Set<String> ids = new HashSet<>(listed(tgt));
            return m -> ids.contains(m.id());
        }
        if (!(tgt instanceof String text) || text.isBlank()) {
            throw new TargetException(type + " target is empty");
        }
        return switch (type) {
            case "glob" -> {
                Glob glob = Glob.compile(text);
                yield m -> glob.matches(m.id());
            }
            case "pcre" -> {
                Pattern p = regex(text, "pcre target");
                yield m -> p.matcher(m.id()).lookingAt();
            }
            case "grain" -> grain(text, false);
            case "grain_pcre" -> grain(text, true);
            case "ipcidr" -> {
                Cidr cidr = Cidr.parse(text);
                yield m -> m.addresses().stream().anyMatch(cidr::contains);
            }
            case "compound" -> new Compound(text, nodegroups, expanding).parse();
            case "nodegroup" -> nodegroup(text, nodegroups, expanding);
            default -> throw new TargetException("unknown target type '" + type + "' (" + String.join(", ", TYPES) + ")");
        };
    }

    /**
     * A nodegroup or compound target as minions receive it: every {@code N@name} (and a nodegroup target itself)
     * replaced by its expression in parentheses, as Salt's master expands them. Minions do not know nodegroups.
     */
    public static String expandNodegroups(String type, String tgt, Map<String, String> nodegroups) {
        parse(type, tgt, nodegroups);
        return expand(type.equals("nodegroup") ? "N@" + tgt : tgt, nodegroups);
    }

    private static String expand(String expression, Map<String, String> nodegroups) {
        StringBuilder out = new StringBuilder();
        for (String word : expression.strip().split("\\s+")) {
            int open = 0;
            while (open < word.length() && word.charAt(open) == '(') {
                open++;
            }
            int close = word.length();
            while (close > open && word.charAt(close - 1) == ')') {
                close--;
            }
            String core = word.substring(open, close);
            String replaced = core.startsWith("N@") ? "( " + expand(nodegroups.get(core.substring(2)), nodegroups) + " )" : core;
            out.append(out.isEmpty() ? "" : " ").append(word, 0, open).append(replaced).append(word.substring(close));
        }
        return out.toString();
    }

    /** The ids of a list target: a list, or a comma-separated string; trimmed, blanks dropped. */
    public static List<String> listed(Object tgt) {
        Collection<?> items = tgt instanceof Collection<?> c ? c
                : tgt instanceof String s ? Arrays.asList(s.split(",")) : List.of();
        List<String> ids = items.stream().map(i -> String.valueOf(i).strip()).filter(i -> !i.isEmpty()).distinct().toList();
        if (ids.isEmpty()) {
            throw new TargetException("list target names no id");
        }
        return ids;
    }

    private static Predicate<MinionView> nodegroup(String name, Map<String, String> nodegroups, Set<String> expanding) {
        String expression = nodegroups.get(name);
        if (expression == null) {
            throw new TargetException("unknown nodegroup '" + name + "'"
                    + (nodegroups.isEmpty() ? " (no nodegroups are configured)" : " (known: " + String.join(", ", nodegroups.keySet().stream().sorted().toList()) + ")"));
        }
        if (!expanding.add(name)) {
            throw new TargetException("nodegroup '" + name + "' refers to itself (through " + String.join(" -> ", expanding) + ")");
        }
        Predicate<MinionView> p = predicate("compound", expression, nodegroups, expanding);
        expanding.remove(name);
        return p;
    }

    private static Pattern regex(String text, String what) {
        try {
            return Pattern.compile(text);
        } catch (PatternSyntaxException e) {
            throw new TargetException(what + " '" + text + "' is not a regular expression: " + e.getDescription());
        }
    }

    /** {@code key[:sub…]:value}: every split between key path and value is tried, as Salt does. */
    private static Predicate<MinionView> grain(String text, boolean regex) {
        String[] parts = text.split(":", -1);
        if (parts.length < 2 || parts[0].isEmpty()) {
            throw new TargetException("grain target '" + text + "' is not key:value");
        }
        List<Predicate<MinionView>> splits = new ArrayList<>();
        for (int at = 1; at < parts.length; at++) {
            List<String> path = List.of(Arrays.copyOfRange(parts, 0, at));
            String value = String.join(":", Arrays.copyOfRange(parts, at, parts.length)).toLowerCase(Locale.ROOT);
            Predicate<String> valueMatch;
            if (regex) {
                Pattern p = regex(value, "grain_pcre value");
                valueMatch = v -> p.matcher(v).lookingAt();
            } else if (value.isEmpty()) {
                valueMatch = String::isEmpty;
            } else {
                Glob g = Glob.compile(value);
                valueMatch = g::matches;
            }
            splits.add(m -> matchesValue(lookup(m.grains(), path), valueMatch));
        }
        return m -> splits.stream().anyMatch(s -> s.test(m));
    }

    private static Object lookup(Map<String, Object> grains, List<String> path) {
        Object node = grains;
        for (String key : path) {
            if (!(node instanceof Map<?, ?> map) || !map.containsKey(key)) {
                return Missing.VALUE;
            }
            node = map.get(key);
        }
        return node;
    }

    private enum Missing { VALUE }

    private static boolean matchesValue(Object value, Predicate<String> match) {
        return switch (value) {
            case Missing ignored -> false;
            case Collection<?> list -> list.stream().anyMatch(v -> matchesValue(v, match));
            case Map<?, ?> map -> map.keySet().stream().anyMatch(k -> matchesValue(k, match));
            case null -> match.test("none");
            default -> match.test(String.valueOf(value).toLowerCase(Locale.ROOT));
        };
    }

    /** An IPv4 network (or a single address as /32). */
    record Cidr(long network, int prefix) {
        static Cidr parse(String text) {
            String[] parts = text.strip().split("/", -1);
            if (parts.length > 2) {
                throw new TargetException("invalid CIDR '" + text + "'");
            }
            Long address = ipv4(parts[0]);
            int prefix;
            try {
                prefix = parts.length == 2 ? Integer.parseInt(parts[1]) : 32;
            } catch (NumberFormatException e) {
                prefix = -1;
            }
            if (address == null || prefix < 0 || prefix > 32) {
                throw new TargetException("invalid CIDR '" + text + "' (expected a.b.c.d or a.b.c.d/0-32)");
            }
            return new Cidr(address & mask(prefix), prefix);
        }

        boolean contains(String candidate) {
            Long address = ipv4(candidate);
            return address != null && (address & mask(prefix)) == network;
        }

        private static long mask(int prefix) {
            return prefix == 0 ? 0 : (0xFFFFFFFFL << (32 - prefix)) & 0xFFFFFFFFL;
        }

        static Long ipv4(String text) {
            String[] octets = text.split("\\.", -1);
            if (octets.length != 4) {
                return null;
            }
            long value = 0;
            for (String octet : octets) {
                if (octet.isEmpty() || octet.length() > 3 || !octet.chars().allMatch(Character::isDigit)) {
                    return null;
                }
                int n = Integer.parseInt(octet);
                if (n > 255) {
                    return null;
                }
                value = (value << 8) | n;
            }
            return value;
        }
    }

    /** Recursive descent over the words of a compound expression: or → and → not → term. */
    private static final class Compound {
        private final String text;
        private final Map<String, String> nodegroups;
        private final Set<String> expanding;
        private final List<String> words = new ArrayList<>();
        private int at;

        Compound(String text, Map<String, String> nodegroups, Set<String> expanding) {
            this.text = text;
            this.nodegroups = nodegroups;
            this.expanding = expanding;
            for (String word : text.strip().split("\\s+")) {
                int open = 0;
                while (open < word.length() && word.charAt(open) == '(') {
                    words.add("(");
                    open++;
                }
                int close = word.length();
                while (close > open && word.charAt(close - 1) == ')') {
                    close--;
                }
                if (close > open) {
                    words.add(word.substring(open, close));
                }
                for (int i = close; i < word.length(); i++) {
                    words.add(")");
                }
            }
        }

        Predicate<MinionView> parse() {
            Predicate<MinionView> result = or();
            if (at < words.size()) {
                String word = words.get(at);
                throw error(word.equals(")") ? "unbalanced parenthesis" : "'" + word + "' follows a complete expression without and/or");
            }
            return result;
        }

        private Predicate<MinionView> or() {
            Predicate<MinionView> left = and();
            while (peek("or")) {
                at++;
                left = left.or(and());
            }
            return left;
        }

        private Predicate<MinionView> and() {
            Predicate<MinionView> left = not();
            while (peek("and") || peek("not")) {
                if (peek("and")) {
                    at++;
                }
                left = left.and(not());
            }
            return left;
        }

        private Predicate<MinionView> not() {
            if (peek("not")) {
                at++;
                return not().negate();
            }
            return term();
        }

        private Predicate<MinionView> term() {
            if (at >= words.size()) {
                throw error(words.isEmpty() ? "it is empty" : "it ends where a match is expected");
            }
            String word = words.get(at++);
            switch (word) {
                case "(" -> {
                    Predicate<MinionView> inner = or();
                    if (!peek(")")) {
                        throw error("unbalanced parenthesis");
                    }
                    at++;
                    return inner;
                }
                case ")", "and", "or" -> throw error("'" + word + "' where a match is expected");
                default -> {
                    return word(word);
                }
            }
        }

        private Predicate<MinionView> word(String word) {
            if (word.length() > 2 && word.charAt(1) == '@') {
                String value = word.substring(2);
                return switch (word.charAt(0)) {
                    case 'G' -> predicate("grain", value, nodegroups, expanding);
                    case 'P' -> predicate("grain_pcre", value, nodegroups, expanding);
                    case 'E' -> predicate("pcre", value, nodegroups, expanding);
                    case 'L' -> predicate("list", value, nodegroups, expanding);
                    case 'S' -> predicate("ipcidr", value, nodegroups, expanding);
                    case 'N' -> nodegroup(value, nodegroups, expanding);
                    default -> throw error("'" + word.charAt(0) + "@' is not supported (G@ P@ E@ L@ S@ N@, or a bare id glob)");
                };
            }
            return predicate("glob", word, nodegroups, expanding);
        }

        private boolean peek(String word) {
            return at < words.size() && words.get(at).equals(word);
        }

        private TargetException error(String why) {
            return new TargetException("compound target '" + text + "': " + why);
        }
    }
}
