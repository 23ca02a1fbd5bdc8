package io.drover.core.plans;

/** The error codes of an execution result, as the unified agent specification numbers them. */
public final class PlanErrorCode {
    public static final int OK = 0;
    /** Anything else: an error while the Body or a script ran. */
    public static final int GENERIC = 1;
    /** The plan is badly formatted. */
    public static final int BAD_FORMAT = 2;
    /** A script needs a deployment platform this agent has no executor for. */
    public static final int UNSUPPORTED_PLATFORM = 3;
    /** SyntaxError, TabError, ImportError… in the Body. */
    public static final int SYNTAX_ERROR = 4;
    /** A script's options are not a valid set. */
    public static final int INVALID_OPTIONS = 5;
    /** The Body read a parameter the plan does not have. */
    public static final int MISSING_PARAMETER = 6;
    /** A script names a file that the plan's Files do not hold. */
    public static final int MISSING_FILES = 7;
    /** A file could not be fetched or stored. */
    public static final int FETCH_ERROR = 8;
    public static final int UNSUPPORTED_FORMAT_VERSION = 9;
    public static final int TIMEOUT = 10;
    /** {@code 100 + X}: the user's exit code X ({@code api.setExitCode}); a failing script is 100. */
    public static final int USER_BASE = 100;

    private PlanErrorCode() {
    }

    /** What a code means, for logs and the CLI. */
    public static String describe(int code) {
        return switch (code) {
            case OK -> "success";
            case GENERIC -> "error while running";
            case BAD_FORMAT -> "bad format";
            case UNSUPPORTED_PLATFORM -> "unsupported deployment platform";
            case SYNTAX_ERROR -> "syntax error in the Body";
            case INVALID_OPTIONS -> "invalid script options";
            case MISSING_PARAMETER -> "missing parameter";
            case MISSING_FILES -> "required files missing";
            case FETCH_ERROR -> "file fetch or store error";
            case UNSUPPORTED_FORMAT_VERSION -> "unsupported FormatVersion";
            case TIMEOUT -> "timeout";
            default -> code >= USER_BASE ? "user error " + (code - USER_BASE) : "error " + code;
        };
    }
}
