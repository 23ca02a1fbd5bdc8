-- Secrets operators pass to plugins (docs/subscriptions.md, "Secrets"), by business and name, sealed with secret.key.
CREATE TABLE secret (
    bk_biz_id  BIGINT NOT NULL,
    name       VARCHAR(64) NOT NULL,
    sealed     VARCHAR NOT NULL,
    updated_by VARCHAR(128) NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL,
    updated_at TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (bk_biz_id, name)
);

-- A job that carries a secret stores its arguments redacted in arg, and what the agent was sent sealed here, to send
-- it again under the same job id.
ALTER TABLE job ADD COLUMN sealed_arg VARCHAR;
