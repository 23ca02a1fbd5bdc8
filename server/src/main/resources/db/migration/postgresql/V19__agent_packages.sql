-- Agent packages the server hands out to hosts (drover-agent-<version>-linux-<arch>.tar.gz), and their bytes in chunks
-- of up to 1 MiB so that every server of a cluster can serve every package; the files under <data-dir>/agent-packages
-- are a cache of these rows.
CREATE TABLE agent_package (
    version      VARCHAR(64) NOT NULL,
    os           VARCHAR(16) NOT NULL,
    arch         VARCHAR(16) NOT NULL,
    sha256       VARCHAR(64) NOT NULL,
    size_bytes   BIGINT NOT NULL,
    uploaded_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    uploaded_by  VARCHAR(255) NOT NULL,
    PRIMARY KEY (version, os, arch)
);

CREATE TABLE agent_package_chunk (
    version VARCHAR(64) NOT NULL,
    os      VARCHAR(16) NOT NULL,
    arch    VARCHAR(16) NOT NULL,
    seq     INTEGER NOT NULL,
    bytes   BYTEA NOT NULL,
    PRIMARY KEY (version, os, arch, seq)
);
