package io.drover.core.render;

/** A template that cannot be rendered; the message names the template, the line and the error. */
public final class RenderException extends RuntimeException {
    public RenderException(String message) {
        super(message);
    }
}
