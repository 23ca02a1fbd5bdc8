package io.drover.core.plans;

/**
 * A plan that cannot be run or that failed, with the specification's error code; {@code additionalInfo} is the
 * JSON value a result carries beside the message (a script's exit code and output, for example), or null.
 */
public final class PlanException extends RuntimeException {
    private final int code;
    private final transient Object additionalInfo;

    public PlanException(int code, String message) {
        this(code, message, null);
    }

    public PlanException(int code, String message, Object additionalInfo) {
        super(message, null, false, false);
        this.code = code;
        this.additionalInfo = additionalInfo;
    }

    public int code() {
        return code;
    }

    public Object additionalInfo() {
        return additionalInfo;
    }
}
