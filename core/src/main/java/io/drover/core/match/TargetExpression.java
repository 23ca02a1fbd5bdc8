package io.drover.core.match;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

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
    /** Parentheses, {@code not}s and nodegroup references, nested: deeper is refused before it costs a stack. */
    public static final int MAX_DEPTH = 50;
    /** Matches in one target, nodegroups expanded: bounds parsing a nodegroup that names another many times. */
    public static final int MAX_TERMS = 100_000;
    /** Characters of a target with its nodegroups expanded, as minions receive it. */
    public static final int MAX_EXPANDED_CHARS = 1 << 20;
    private static final int SHOWN_CHARS = 120;

    private final Predicate<MinionView> predicate;

    private TargetExpression(Predicate<MinionView> predicate) {
        this.predicate = predicate;
    }

    public boolean matches(MinionView minion) {
        return predicate.test(minion);
    }

    /** Parses a target; {@code nodegroups} maps names to compound expressions. */
    public static TargetExpression parse(String type, Object tgt, Map<String, String> nodegroups) {
        return new TargetExpression(predicate(type == null ? "glob" : type, tgt, new Parsing(nodegroups), 0));
    }

    /** What one parse has seen: nodegroups being expanded (to find cycles) and matches so far. */
    private static final class Parsing {
        final Map<String, String> nodegroups;
        final Set<String> expanding = new LinkedHashSet<>();
        int terms;

        Parsing(Map<String, String> nodegroups) {
            this.nodegroups = nodegroups;
        }

        void countTerm() {
            if (++terms > MAX_TERMS) {
                throw new TargetException("target has more than " + MAX_TERMS + " matches (nodegroups expanded)");
            }
        }
    }

    private static Predicate<MinionView> predicate(String type, Object tgt, Parsing parsing, int depth) {
        parsing.countTerm();
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
                BoundedRegex regex = BoundedRegex.compile(text, "pcre target");
                yield m -> regex.lookingAt(m.id());
            }
            case "grain" -> grain(text, false);
            case "grain_pcre" -> grain(text, true);
            case "ipcidr" -> {
                Cidr cidr = Cidr.parse(text);
                yield m -> m.addresses().stream().anyMatch(cidr::contains);
            }
            case "compound" -> new Compound(text, parsing, depth).parse();
            case "nodegroup" -> nodegroup(text, parsing, depth);
            default -> throw new TargetException("unknown target type '" + shown(type) + "' (" + String.join(", ", TYPES) + ")");
        };
    }

    /** An expression as errors quote it: cut after {@value #SHOWN_CHARS} characters. */
    static String shown(String text) {
        return text.length() <= SHOWN_CHARS ? text : text.substring(0, SHOWN_CHARS) + "… (" + text.length() + " characters)";
    }

    /**
     * A nodegroup or compound target as minions receive it: every {@code N@name} (and a nodegroup target itself)
     * replaced by its expression in parentheses, as Salt's master expands them. Minions do not know nodegroups.
     */
    public static String expandNodegroups(String type, String tgt, Map<String, String> nodegroups) {
        parse(type, tgt, nodegroups);
        StringBuilder out = new StringBuilder();
        expand(type.equals("nodegroup") ? "N@" + tgt : tgt, nodegroups, out);
        return out.toString();
    }

    /** Recursion is bounded: the parse above refused cycles and nesting past {@link #MAX_DEPTH}. */
    private static void expand(String expression, Map<String, String> nodegroups, StringBuilder out) {
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
            out.append(out.isEmpty() || out.charAt(out.length() - 1) == ' ' ? "" : " ").append(word, 0, open);
            if (core.startsWith("N@")) {
                out.append("( ");
                expand(nodegroups.get(core.substring(2)), nodegroups, out);
                out.append(" )");
            } else {
                out.append(core);
            }
            out.append(word, close, word.length());
            if (out.length() > MAX_EXPANDED_CHARS) {
                throw new TargetException("target is longer than " + MAX_EXPANDED_CHARS + " characters with its nodegroups expanded");
            }
        }
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

    private static Predicate<MinionView> nodegroup(String name, Parsing parsing, int depth) {
        String expression = parsing.nodegroups.get(name);
        if (expression == null) {
            Set<String> known = new TreeSet<>(parsing.nodegroups.keySet());
            throw new TargetException("unknown nodegroup '" + shown(name) + "'"
                    + (known.isEmpty() ? " (no nodegroups are configured)" : " (known: " + String.join(", ", known) + ")"));
        }
        if (!parsing.expanding.add(name)) {
            throw new TargetException("nodegroup '" + name + "' refers to itself (through " + String.join(" -> ", parsing.expanding) + ")");
        }
        Predicate<MinionView> p = predicate("compound", expression, parsing, depth);
        parsing.expanding.remove(name);
        return p;
    }

    /** {@code key[:sub…]:value}: every split between key path and value is tried, as Salt does. */
    private static Predicate<MinionView> grain(String text, boolean regex) {
        String[] parts = text.split(":", -1);
        if (parts.length < 2 || parts[0].isEmpty()) {
            throw new TargetException("grain target '" + shown(text) + "' is not key:value");
        }
        List<Predicate<MinionView>> splits = new ArrayList<>();
        for (int at = 1; at < parts.length && at <= MAX_DEPTH; at++) {
            List<String> path = List.of(Arrays.copyOfRange(parts, 0, at));
            String value = String.join(":", Arrays.copyOfRange(parts, at, parts.length)).toLowerCase(Locale.ROOT);
            Predicate<String> valueMatch;
            if (regex) {
                BoundedRegex p = BoundedRegex.compile(value, "grain_pcre value");
                valueMatch = p::lookingAt;
            } else if (value.isEmpty()) {
                valueMatch = String::isEmpty;
            } else {
                Glob g = Glob.compile(value);
                valueMatch = g::matches;
            }
            splits.add(m -> matchesValue(lookup(m.grains(), path), valueMatch, 0));
        }
        return anyOf(splits);
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

    /** Grains come from hosts: lists and maps nested past {@link #MAX_DEPTH} are not looked into. */
    private static boolean matchesValue(Object value, Predicate<String> match, int depth) {
        return switch (value) {
            case Missing ignored -> false;
            case Collection<?> list -> depth < MAX_DEPTH && list.stream().anyMatch(v -> matchesValue(v, match, depth + 1));
            case Map<?, ?> map -> depth < MAX_DEPTH && map.keySet().stream().anyMatch(k -> matchesValue(k, match, depth + 1));
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

    private static Predicate<MinionView> anyOf(List<Predicate<MinionView>> parts) {
        return combined(parts, true);
    }

    private static Predicate<MinionView> allOf(List<Predicate<MinionView>> parts) {
        return combined(parts, false);
    }

    /** One flat predicate over all parts: true at the first part that matches ({@code any}), or false at the first that does not. */
    private static Predicate<MinionView> combined(List<Predicate<MinionView>> parts, boolean any) {
        if (parts.size() == 1) {
            return parts.getFirst();
        }
        List<Predicate<MinionView>> all = List.copyOf(parts);
        return m -> {
            for (Predicate<MinionView> p : all) {
                if (p.test(m) == any) {
                    return any;
                }
            }
            return !any;
        };
    }

    /**
     * Recursive descent over the words of a compound expression: or → and → not → term. Each parenthesis,
     * {@code not} and nodegroup goes one level deeper, at most {@link #MAX_DEPTH}; a run of {@code or} or
     * {@code and} builds one flat predicate, so matching recurses no deeper than parsing did.
     */
    private static final class Compound {
        private final String text;
        private final Parsing parsing;
        private final int baseDepth;
        private final List<String> words = new ArrayList<>();
        private int at;

        Compound(String text, Parsing parsing, int depth) {
            this.text = text;
            this.parsing = parsing;
            this.baseDepth = depth;
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
            Predicate<MinionView> result = or(baseDepth);
            if (at < words.size()) {
                String word = words.get(at);
                throw error(word.equals(")") ? "unbalanced parenthesis" : "'" + shown(word) + "' follows a complete expression without and/or");
            }
            return result;
        }

        private Predicate<MinionView> or(int depth) {
            List<Predicate<MinionView>> any = new ArrayList<>();
            any.add(and(depth));
            while (peek("or")) {
                at++;
                any.add(and(depth));
            }
            return anyOf(any);
        }

        private Predicate<MinionView> and(int depth) {
            List<Predicate<MinionView>> all = new ArrayList<>();
            all.add(not(depth));
            while (peek("and") || peek("not")) {
                if (peek("and")) {
                    at++;
                }
                all.add(not(depth));
            }
            return allOf(all);
        }

        private Predicate<MinionView> not(int depth) {
            if (peek("not")) {
                at++;
                return not(deeper(depth)).negate();
            }
            return term(depth);
        }

        private Predicate<MinionView> term(int depth) {
            if (at >= words.size()) {
                throw error(words.isEmpty() ? "it is empty" : "it ends where a match is expected");
            }
            String word = words.get(at++);
            switch (word) {
                case "(" -> {
                    Predicate<MinionView> inner = or(deeper(depth));
                    if (!peek(")")) {
                        throw error("unbalanced parenthesis");
                    }
                    at++;
                    return inner;
                }
                case ")", "and", "or" -> throw error("'" + word + "' where a match is expected");
                default -> {
                    return word(word, depth);
                }
            }
        }

        private int deeper(int depth) {
            if (depth >= MAX_DEPTH) {
                throw error("nested deeper than " + MAX_DEPTH + " levels (parentheses, not and nodegroups)");
            }
            return depth + 1;
        }

        private Predicate<MinionView> word(String word, int depth) {
            if (word.length() > 2 && word.charAt(1) == '@') {
                String value = word.substring(2);
                return switch (word.charAt(0)) {
                    case 'G' -> predicate("grain", value, parsing, depth);
                    case 'P' -> predicate("grain_pcre", value, parsing, depth);
                    case 'E' -> predicate("pcre", value, parsing, depth);
                    case 'L' -> predicate("list", value, parsing, depth);
                    case 'S' -> predicate("ipcidr", value, parsing, depth);
                    case 'N' -> nodegroup(value, parsing, deeper(depth));
                    default -> throw error("'" + word.charAt(0) + "@' is not supported (G@ P@ E@ L@ S@ N@, or a bare id glob)");
                };
            }
            return predicate("glob", word, parsing, depth);
        }

        private boolean peek(String word) {
            return at < words.size() && words.get(at).equals(word);
        }

        private TargetException error(String why) {
            return new TargetException("compound target '" + shown(text) + "': " + why);
        }
    }
}
