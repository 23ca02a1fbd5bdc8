package io.drover.core.plans;

import static io.drover.core.plans.PlanErrorCode.BAD_FORMAT;
import static io.drover.core.plans.PlanErrorCode.INVALID_OPTIONS;
import static io.drover.core.plans.PlanErrorCode.MISSING_FILES;
import static io.drover.core.plans.PlanErrorCode.UNSUPPORTED_FORMAT_VERSION;
import static io.drover.core.plans.PlanErrorCode.UNSUPPORTED_PLATFORM;

import io.drover.core.packages.Version;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Checks an execution plan as it arrived (a JSON object read into maps and lists) and turns it into an
 * {@link ExecutionPlan}, or throws a {@link PlanException} with the specification's code: 2 bad format, 3 a script
 * type this agent has no executor for (or a script Version above {@link #EXECUTOR_VERSION}), 5 invalid options, 7 a file a script names missing from Files, 9 a
 * FormatVersion above 2.2.0. A plan below 2.0.0 (or without FormatVersion) is a vCurrent plan and is converted first.
 * Structure is checked before the platform, so a plan that is wrong everywhere says so on every agent.
 */
public final class PlanValidator {
    public static final Version NEWEST = Version.of(2, 2, 0);
    /** The version of every executor of this agent: a script whose Version is above it is refused with 3. */
    public static final Version EXECUTOR_VERSION = Version.of(1, 0, 0);
    private static final Version V2_0 = Version.of(2, 0, 0);
    private static final Version V2_1 = Version.of(2, 1, 0);
    private static final Pattern STRICT_SEMVER = Pattern.compile("\\d{1,9}\\.\\d{1,9}\\.\\d{1,9}(-[0-9A-Za-z.-]+)?(\\+[0-9A-Za-z.-]+)?");
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");
    private static final Set<String> PYTHON_KEYWORDS = Set.of("False", "None", "True", "and", "as", "assert", "async",
            "await", "break", "class", "continue", "def", "del", "elif", "else", "except", "finally", "for", "from",
            "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try",
            "while", "with", "yield");
    private static final Set<String> CAPTURE_OPTIONS = Set.of("captureStdout", "captureStderr", "verifyExitcode", "timeout");
    private static final Set<String> BERKSHELF_OPTIONS = Set.of("useBerkshelf", "berksfilePath");
    public static final int MAX_BODY = 1 << 20;
    public static final int MAX_TEXT = 4096;
    public static final long MAX_TIMEOUT_SECONDS = 7 * 24 * 3600;

    private final Function<String, String> unsupported;

    /**
     * {@code unsupported}: for a script Type, null when this agent can run it, otherwise why not in a sentence
     * ("Chef scripts need chef-solo, which is not installed on this host").
     */
    public PlanValidator(Function<String, String> unsupported) {
        this.unsupported = unsupported;
    }

    /** A validator for an agent with executors for exactly these types. */
    public static PlanValidator supporting(Set<String> types) {
        Set<String> known = Set.copyOf(types);
        return new PlanValidator(type -> known.contains(type) ? null : "there is no executor for the deployment platform "
                + type + " (this agent has: " + String.join(", ", known.stream().sorted().toList()) + ")");
    }

    /**
     * The plan, checked. {@code messageId} is the id the channel gave the message (AMQP's {@code message_id}); it is
     * the plan's ID when the plan has none, and a converted vCurrent plan's ID always.
     */
    public ExecutionPlan validate(Object document, String messageId) {
        if (!(document instanceof Map<?, ?> root)) {
            throw bad("The execution plan is not a JSON object");
        }
        String formatText = root.containsKey("FormatVersion") ? text(root, "FormatVersion", null) : "1.0.0";
        Version format = formatVersion(formatText);
        if (format.compareTo(V2_0) < 0) {
            Map<String, Object> converted = VCurrentConverter.toVNext(root, messageId);
            return check(converted, Version.of(2, 0, 0), formatText, messageId, true);
        }
        return check(root, format, formatText, messageId, false);
    }

    private ExecutionPlan check(Map<?, ?> root, Version format, String formatText, String messageId, boolean converted) {
        String action = text(root, "Action", "Execute");
        if (!action.equalsIgnoreCase("Execute")) {
            throw bad("Action " + action + " is not supported (only Execute)");
        }
        String id = text(root, "ID", messageId);
        Long stamp = root.get("Stamp") == null ? null : stamp(root.get("Stamp"));
        Map<String, Object> parameters = dictionary(root, "Parameters");
        Object body = root.get("Body");
        if (body != null && !(body instanceof String)) {
            throw bad("Body is not a string");
        }
        if (body != null && ((String) body).length() > MAX_BODY) {
            throw bad("Body is over " + MAX_BODY + " characters");
        }
        Map<String, Object> rawScripts = dictionary(root, "Scripts");
        Map<String, Object> rawFiles = dictionary(root, "Files");
        Map<String, PlanFile> files = new LinkedHashMap<>();
        rawFiles.forEach((key, value) -> files.put(key, file(key, value, format)));
        Map<String, PlanScript> scripts = new LinkedHashMap<>();
        rawScripts.forEach((name, value) -> scripts.put(name, script(name, value, format, files)));
        for (PlanScript script : scripts.values()) {
            String why = unsupported.apply(script.type());
            if (why != null) {
                throw new PlanException(UNSUPPORTED_PLATFORM, "Script " + script.name() + " cannot run here: " + why);
            }
        }
        return new ExecutionPlan(formatText, id, stamp, text(root, "Name", null), text(root, "Version", "0.0.0"),
                text(root, "Service", null), Collections.unmodifiableMap(parameters), body == null ? "" : (String) body,
                Collections.unmodifiableMap(files), Collections.unmodifiableMap(scripts), text(root, "ReplyTo", null),
                timeout(root.get("Timeout")), converted);
    }

    private static Version formatVersion(String text) {
        if (text == null || !STRICT_SEMVER.matcher(text).matches()) {
            throw bad("FormatVersion " + quote(text) + " is not a semantic version (MAJOR.MINOR.PATCH)");
        }
        Version version = Version.parse(text);
        if (version.compareTo(NEWEST) > 0) {
            throw new PlanException(UNSUPPORTED_FORMAT_VERSION,
                    "Unsupported format version " + text + " (I support versions <=" + NEWEST + ")");
        }
        return version;
    }

    private PlanScript script(String name, Object value, Version format, Map<String, PlanFile> files) {
        if (!IDENTIFIER.matcher(name).matches() || PYTHON_KEYWORDS.contains(name)) {
            throw bad("Script name " + quote(name) + " is not a Python identifier");
        }
        if (name.equals("args") || name.equals("api")) {
            throw bad("Script name " + name + " is reserved (args and api are predefined in the Body)");
        }
        if (!(value instanceof Map<?, ?> script)) {
            throw bad("Script " + name + " is not a dictionary");
        }
        String type = script.get("Type") instanceof String t && !t.isBlank() ? t : null;
        if (type == null) {
            throw bad("Incorrect Type entry in script " + name);
        }
        String entryPoint = script.get("EntryPoint") instanceof String e && !e.isBlank() ? e : null;
        if (entryPoint == null) {
            throw bad("Incorrect EntryPoint entry in script " + name);
        }
        Object rawOptions = script.get("Options");
        if (rawOptions != null && !(rawOptions instanceof Map<?, ?>)) {
            throw new PlanException(INVALID_OPTIONS, "Options of script " + name + " is not a dictionary");
        }
        Map<String, Object> options = new LinkedHashMap<>();
        if (rawOptions != null) {
            ((Map<?, ?>) rawOptions).forEach((k, v) -> options.put(String.valueOf(k), v));
        }
        options(name, type, options, format);
        boolean recipe = type.equals("Chef") || type.equals("Puppet");
        if (recipe && !entryPoint.contains("::")) {
            throw bad("Wrong EntryPoint " + entryPoint + " for Puppet/Chef executors. :: needed");
        }
        if (!recipe && !files.containsKey(entryPoint)) {
            throw new PlanException(MISSING_FILES, "Script " + name + " misses entry point " + entryPoint);
        }
        List<String> fileIds = new ArrayList<>();
        Object rawFiles = script.get("Files");
        if (rawFiles != null && !(rawFiles instanceof List<?>)) {
            throw bad("Files of script " + name + " is not a list");
        }
        if (rawFiles != null) {
            for (Object entry : (List<?>) rawFiles) {
                fileIds.add(scriptFile(name, entry, format, files));
            }
        }
        Object version = script.get("Version");
        if (version != null && !(version instanceof String)) {
            throw bad("Incorrect Version entry in script " + name);
        }
        if (version != null) {
            platformVersion(name, type, (String) version);
        }
        return new PlanScript(name, type, (String) version, entryPoint, fileIds, options);
    }

    /**
     * A script's Version, the least version of its platform's executor it needs: as the reference engine's templates
     * write it ({@code 1.0.0}; {@code 1} and {@code 1.0} read as {@code 1.0.0}), and not above {@link #EXECUTOR_VERSION}.
     */
    private static void platformVersion(String script, String type, String text) {
        String padded = text.matches("\\d{1,9}") ? text + ".0.0" : text.matches("\\d{1,9}\\.\\d{1,9}") ? text + ".0" : text;
        if (!STRICT_SEMVER.matcher(padded).matches()) {
            throw bad("Version " + quote(text) + " of script " + script + " is not a version (MAJOR.MINOR.PATCH)");
        }
        if (Version.parse(padded).comparePrecedence(EXECUTOR_VERSION) > 0) {
            throw new PlanException(UNSUPPORTED_PLATFORM, "Script " + script + " needs version " + text + " of the " + type
                    + " platform; this agent's executors are version " + EXECUTOR_VERSION);
        }
    }

    /** A script's file: the id of a plan file, or (as the reference engine writes it) {@code {name: url}}. */
    private static String scriptFile(String script, Object entry, Version format, Map<String, PlanFile> files) {
        if (entry instanceof String id) {
            if (!files.containsKey(id)) {
                throw new PlanException(MISSING_FILES, "Script " + script + " misses file " + id);
            }
            return id;
        }
        if (entry instanceof Map<?, ?> map && map.size() == 1 && map.keySet().iterator().next() instanceof String name
                && map.values().iterator().next() instanceof String url) {
            String id = script + ":" + name;
            Map<String, Object> raw = new LinkedHashMap<>();
            raw.put("Name", name);
            raw.put("Type", "Downloadable");
            raw.put("URL", url);
            files.put(id, file(id, raw, format));
            return id;
        }
        throw bad("Incorrect entry " + brief(entry) + " in the Files of script " + script);
    }

    private static void options(String script, String type, Map<String, Object> options, Version format) {
        for (Map.Entry<String, Object> option : options.entrySet()) {
            String key = option.getKey();
            Object value = option.getValue();
            if (BERKSHELF_OPTIONS.contains(key)) {
                if (format.compareTo(NEWEST) < 0) {
                    throw new PlanException(INVALID_OPTIONS, "Script has an option " + key + " invalid for version " + format);
                }
                if (!type.equals("Chef")) {
                    throw new PlanException(INVALID_OPTIONS, "Script has an option " + key + " invalid for type " + type);
                }
                boolean ok = key.equals("useBerkshelf") ? value instanceof Boolean : value instanceof String s && safeName(s);
                if (!ok) {
                    throw new PlanException(INVALID_OPTIONS, "Option " + key + " of script " + script + " has a wrong value " + brief(value));
                }
            } else if (key.equals("timeout")) {
                if (!(value instanceof Number n) || n.doubleValue() <= 0 || n.doubleValue() > MAX_TIMEOUT_SECONDS) {
                    throw new PlanException(INVALID_OPTIONS, "Option timeout of script " + script
                            + " must be a number of seconds between 0 and " + MAX_TIMEOUT_SECONDS + ", not " + brief(value));
                }
            } else if (CAPTURE_OPTIONS.contains(key)) {
                if (!(value instanceof Boolean)) {
                    throw new PlanException(INVALID_OPTIONS, "Option " + key + " of script " + script + " must be true or false, not " + brief(value));
                }
            } else {
                throw new PlanException(INVALID_OPTIONS, "Script " + script + " has an unknown option " + quote(key)
                        + " (known: captureStdout, captureStderr, verifyExitcode, timeout, and for Chef useBerkshelf, berksfilePath)");
            }
        }
    }

    /** One entry of Files (or of {@code api.addFile}), checked as the plan's own are. */
    public static PlanFile file(String key, Object value, String formatVersion) {
        return file(key, value, formatVersion(formatVersion));
    }

    private static PlanFile file(String key, Object value, Version format) {
        if (!(value instanceof Map<?, ?> file)) {
            throw bad("Invalid file " + key + ": " + brief(value));
        }
        if (file.containsKey("Type")) {
            if (format.compareTo(V2_1) < 0) {
                throw bad("Download file is Type not valid for this version " + format);
            }
            if (!"Downloadable".equals(file.get("Type"))) {
                throw bad("Incorrect Type entry in file " + key + " (only Downloadable)");
            }
            String url = fileText(file, "URL", key);
            String name = file.get("Name") == null ? lastSegment(url) : fileText(file, "Name", key);
            return downloadable(key, name(key, name), url(key, url), sha256(file, key));
        }
        if (!file.containsKey("Body") && !file.containsKey("BodyType")) {
            throw bad("Invalid file " + key + ": " + brief(value));
        }
        String bodyType = fileText(file, "BodyType", key);
        String body = file.get("Body") instanceof String b ? b : null;
        if (body == null) {
            throw bad("Incorrect Body entry in file " + key);
        }
        String name = fileText(file, "Name", key);
        return switch (bodyType) {
            case "Text" -> new PlanFile(key, name(key, name), PlanFile.Kind.TEXT, body, null, null);
            case "Base64" -> {
                try {
                    PlanFile.decodeBase64(body);
                } catch (IllegalArgumentException e) {
                    throw bad("Incorrect Body entry in file " + key + ": not Base64 (" + e.getMessage() + ")");
                }
                yield new PlanFile(key, name(key, name), PlanFile.Kind.BASE64, body, null, null);
            }
            case "URI" -> downloadable(key, name(key, name), url(key, body), sha256(file, key));
            default -> throw bad("Incorrect BodyType in file " + key + " (Text, Base64 or URI)");
        };
    }

    private static PlanFile downloadable(String key, String name, String url, String sha256) {
        if (url.regionMatches(true, 0, "salt://", 0, 7) && sha256 == null) {
            throw bad("File " + key + " comes from Drover's fileserver (" + url + ") and needs its Sha256");
        }
        return new PlanFile(key, name, PlanFile.Kind.DOWNLOADABLE, null, url, sha256);
    }

    private static String fileText(Map<?, ?> file, String attribute, String key) {
        if (!(file.get(attribute) instanceof String value) || value.isEmpty()) {
            throw bad("Incorrect " + attribute + " entry in file " + key);
        }
        return value;
    }

    /** A file name is a relative path that stays under the script's folder. */
    private static String name(String key, String name) {
        if (!safeName(name)) {
            throw bad("File " + key + " has the name " + quote(name)
                    + ", which is not a relative path inside the plan's working directory");
        }
        return name;
    }

    static boolean safeName(String name) {
        if (name.isEmpty() || name.length() > 255 || name.startsWith("/") || name.contains("\\")) {
            return false;
        }
        for (String part : name.split("/", -1)) {
            if (part.isEmpty() || part.equals(".") || part.equals("..")) {
                return false;
            }
        }
        return name.chars().noneMatch(c -> c < 0x20 || c == 0x7f);
    }

    private static String url(String key, String url) {
        String lower = url.toLowerCase(java.util.Locale.ROOT);
        if (!(lower.startsWith("http://") || lower.startsWith("https://") || lower.startsWith("salt://"))
                || url.length() > 2048 || url.chars().anyMatch(c -> c <= 0x20 || c == 0x7f)) {
            throw bad("File " + key + " has the URL " + quote(url) + "; only http://, https:// and salt:// (Drover's fileserver) are fetched");
        }
        return url;
    }

    private static String sha256(Map<?, ?> file, String key) {
        Object sha = file.get("Sha256");
        if (sha == null) {
            return null;
        }
        if (!(sha instanceof String s) || !s.matches("[0-9a-f]{64}")) {
            throw bad("Incorrect Sha256 entry in file " + key + " (64 lowercase hex digits)");
        }
        return (String) sha;
    }

    private static String lastSegment(String url) {
        String path = url.replaceAll("[?#].*$", "");
        String last = path.substring(path.lastIndexOf('/') + 1);
        return last.isEmpty() ? "download" : last;
    }

    private static Map<String, Object> dictionary(Map<?, ?> root, String key) {
        Object value = root.get(key);
        if (value == null) {
            return new LinkedHashMap<>();
        }
        if (!(value instanceof Map<?, ?> map)) {
            throw bad(key + " is not a dictionary");
        }
        Map<String, Object> copy = new LinkedHashMap<>();
        map.forEach((k, v) -> copy.put(String.valueOf(k), v));
        return copy;
    }

    private static String text(Map<?, ?> root, String key, String fallback) {
        Object value = root.get(key);
        if (value == null) {
            return fallback;
        }
        if (!(value instanceof String s)) {
            throw bad(key + " is not a string");
        }
        if (s.length() > MAX_TEXT || s.chars().anyMatch(c -> c < 0x20 && c != '\t')) {
            throw bad(key + " is over " + MAX_TEXT + " characters or holds control characters");
        }
        return s;
    }

    private static Long stamp(Object value) {
        if (value instanceof Integer || value instanceof Long) {
            return ((Number) value).longValue();
        }
        throw bad("Stamp is not an integer: " + brief(value));
    }

    private static Duration timeout(Object value) {
        if (value == null) {
            return null;
        }
        if (!(value instanceof Number n) || n.doubleValue() <= 0 || n.doubleValue() > MAX_TIMEOUT_SECONDS) {
            throw bad("Timeout must be a number of seconds between 0 and " + MAX_TIMEOUT_SECONDS + ", not " + brief(value));
        }
        return Duration.ofMillis((long) (n.doubleValue() * 1000));
    }

    static PlanException bad(String message) {
        return new PlanException(BAD_FORMAT, message);
    }

    static String quote(Object value) {
        return value == null ? "(none)" : "'" + brief(value) + "'";
    }

    static String brief(Object value) {
        String text = String.valueOf(value);
        return text.length() > 80 ? text.substring(0, 80) + "…" : text;
    }
}
