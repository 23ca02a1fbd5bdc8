package io.drover.model.secrets;

/** The body of {@code PUT /api/v1/businesses/{bk_biz_id}/secrets/{name}}: the secret's value, never answered back. */
public record SecretRequest(String value) {
    @Override
    public String toString() {
        return "SecretRequest[value=«redacted»]";
    }
}
