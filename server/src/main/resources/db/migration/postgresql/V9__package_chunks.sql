-- Package archives in the database, in chunks of up to 1 MiB: every server of a cluster serves every package to its
-- agents, restoring a file it lacks from here. The files under <data-dir>/files are a cache of these rows.
CREATE TABLE package_chunk (
    name    VARCHAR(64) NOT NULL,
    version VARCHAR(64) NOT NULL,
    seq     INTEGER NOT NULL,
    bytes   BYTEA NOT NULL,
    PRIMARY KEY (name, version, seq)
);
