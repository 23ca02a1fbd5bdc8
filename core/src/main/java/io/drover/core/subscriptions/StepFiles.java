package io.drover.core.subscriptions;

import io.drover.core.Hashing;
import io.drover.core.subscriptions.InstanceRenderer.RenderedStep;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The files one step pushes to one copy: {@code sent}, rendered with the secrets' values, goes to the agent only;
 * {@code shown}, rendered as planning did with {@link SecretReferences#REDACTED} in their place, is what may be
 * stored, logged and digested.
 */
public record StepFiles(Map<String, String> sent, RenderedStep shown) {
    public StepFiles {
        if (!sent.keySet().equals(shown.files().keySet())) {
            throw new IllegalArgumentException("the files sent " + sent.keySet() + " are not the files shown "
                    + shown.files().keySet());
        }
    }

    /** Files without secrets: sent as they are shown. */
    public static StepFiles plain(Map<String, String> files) {
        return new StepFiles(Map.copyOf(files), RenderedStep.of(files));
    }

    public static final StepFiles NONE = plain(Map.of());

    /**
     * The files of a step rendered with the secrets' values ({@code sent}) and as planning rendered them. A render
     * error with the values in place may quote one: it is never passed on.
     */
    public static StepFiles sent(RenderedStep sent, RenderedStep shown) {
        if (sent == null || sent.error() != null) {
            throw new IllegalStateException("the files of this step rendered as planned, but not with the values of their "
                    + "secrets in place (the error is not shown, as it may quote a secret); check how the templates use "
                    + "them: " + shown.secretStamp());
        }
        return new StepFiles(sent.files(), shown);
    }

    public Set<String> paths() {
        return sent.keySet();
    }

    /** What a stored job may hold of a file: its content when no secret changed it, else {@link SecretReferences#REDACTED}. */
    public String shownContent(String path) {
        String content = sent.get(path);
        return content.equals(shown.files().get(path)) ? content : SecretReferences.REDACTED;
    }

    /** Path → the md5 a deployment keeps: of the shown content and the secrets' stamp, never of a secret. */
    public Map<String, String> md5s() {
        Map<String, String> md5s = new LinkedHashMap<>();
        shown.digestContents().forEach((path, content) -> md5s.put(path, Hashing.md5(content)));
        return md5s;
    }
}
