-- Minion keys (like salt-key) and jobs with their returns.

CREATE TABLE minion_key (
    id          VARCHAR(255) PRIMARY KEY,
    state       VARCHAR(16) NOT NULL,
    public_key  VARCHAR NOT NULL,
    fingerprint VARCHAR(128) NOT NULL,
    created_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    updated_at  TIMESTAMP WITH TIME ZONE NOT NULL
);

CREATE TABLE job (
    jid        VARCHAR(32) PRIMARY KEY,
    fun        VARCHAR(255) NOT NULL,
    arg        VARCHAR NOT NULL,
    tgt        VARCHAR NOT NULL,
    tgt_type   VARCHAR(16) NOT NULL,
    minions    VARCHAR NOT NULL,
    actor      VARCHAR(128) NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL
);

CREATE TABLE job_return (
    jid        VARCHAR(32) NOT NULL REFERENCES job (jid) ON DELETE CASCADE,
    minion_id  VARCHAR(255) NOT NULL,
    ret        VARCHAR NOT NULL,
    retcode    INT NOT NULL,
    success    BOOLEAN NOT NULL,
    at         TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (jid, minion_id)
);
