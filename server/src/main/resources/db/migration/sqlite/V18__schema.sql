-- The whole schema for SQLite, at the version PostgreSQL reaches with V1..V18 of db/migration/postgresql (the embedded
-- store was H2 before V19, so no SQLite database exists at an earlier version). Differences from PostgreSQL: ids that
-- the database assigns are INTEGER PRIMARY KEY AUTOINCREMENT (never reused, so event ids only grow); timestamps are
-- TEXT in UTC with a fixed width (store.SqlTime), so that they compare and sort as text; BYTEA is BLOB; booleans
-- are 0/1. A later migration that both databases run alike goes in db/migration/common.

CREATE TABLE business (
    bk_biz_id   INTEGER PRIMARY KEY,
    bk_biz_name VARCHAR(128) NOT NULL,
    attributes  TEXT NOT NULL,
    CONSTRAINT business_name_unique UNIQUE (bk_biz_name)
);

CREATE TABLE topo_set (
    bk_set_id   INTEGER PRIMARY KEY,
    bk_biz_id   BIGINT NOT NULL REFERENCES business (bk_biz_id),
    bk_set_name VARCHAR(128) NOT NULL,
    CONSTRAINT topo_set_name_unique UNIQUE (bk_biz_id, bk_set_name)
);

CREATE TABLE topo_module (
    bk_module_id   INTEGER PRIMARY KEY,
    bk_set_id      BIGINT NOT NULL REFERENCES topo_set (bk_set_id),
    bk_biz_id      BIGINT NOT NULL REFERENCES business (bk_biz_id),
    bk_module_name VARCHAR(128) NOT NULL,
    is_idle        BOOLEAN NOT NULL DEFAULT FALSE,
    CONSTRAINT topo_module_name_unique UNIQUE (bk_set_id, bk_module_name)
);
CREATE INDEX topo_module_biz ON topo_module (bk_biz_id);

CREATE TABLE host (
    bk_host_id      INTEGER PRIMARY KEY,
    bk_biz_id       BIGINT NOT NULL REFERENCES business (bk_biz_id),
    bk_host_innerip VARCHAR(64) NOT NULL,
    bk_cloud_id     BIGINT NOT NULL,
    bk_host_name    VARCHAR(255),
    os_type         VARCHAR(32),
    cpu_arch        VARCHAR(32),
    attributes      TEXT NOT NULL,
    bk_module_ids   TEXT NOT NULL,
    CONSTRAINT host_address_unique UNIQUE (bk_cloud_id, bk_host_innerip)
);
CREATE INDEX host_biz ON host (bk_biz_id, bk_host_id);
CREATE INDEX host_name ON host (bk_host_name);
CREATE INDEX host_innerip ON host (bk_host_innerip);

CREATE TABLE host_module (
    bk_host_id   BIGINT NOT NULL REFERENCES host (bk_host_id) ON DELETE CASCADE,
    bk_module_id BIGINT NOT NULL REFERENCES topo_module (bk_module_id),
    PRIMARY KEY (bk_host_id, bk_module_id)
) WITHOUT ROWID;
CREATE INDEX host_module_module ON host_module (bk_module_id, bk_host_id);

CREATE TABLE service_instance (
    id           INTEGER PRIMARY KEY,
    name         VARCHAR(255) NOT NULL,
    bk_module_id BIGINT NOT NULL REFERENCES topo_module (bk_module_id),
    bk_host_id   BIGINT NOT NULL REFERENCES host (bk_host_id),
    labels       TEXT NOT NULL,
    processes    TEXT NOT NULL
);
CREATE INDEX service_instance_module ON service_instance (bk_module_id, id);
CREATE INDEX service_instance_host ON service_instance (bk_host_id);

CREATE TABLE event_outbox (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    tag        VARCHAR(255) NOT NULL,
    data       TEXT NOT NULL,
    created_at TEXT NOT NULL,
    published  BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE INDEX event_outbox_unpublished ON event_outbox (published, id);
CREATE INDEX event_outbox_created ON event_outbox (created_at);

CREATE TABLE api_token (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    name         VARCHAR(128) NOT NULL,
    token_hash   VARCHAR(64) NOT NULL,
    role         VARCHAR(16) NOT NULL,
    biz_ids      TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    last_used_at TEXT,
    revoked_at   TEXT,
    expires_at   TEXT,
    CONSTRAINT api_token_hash_unique UNIQUE (token_hash)
);

CREATE TABLE audit_log (
    id     INTEGER PRIMARY KEY AUTOINCREMENT,
    at     TEXT NOT NULL,
    actor  VARCHAR(128) NOT NULL,
    method VARCHAR(8) NOT NULL,
    path   VARCHAR(1024) NOT NULL,
    status INT NOT NULL,
    detail TEXT
);
CREATE INDEX audit_log_at ON audit_log (at);

CREATE TABLE minion_key (
    id             VARCHAR(255) PRIMARY KEY,
    state          VARCHAR(16) NOT NULL,
    public_key     TEXT NOT NULL,
    fingerprint    VARCHAR(128) NOT NULL,
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL,
    transport_mode VARCHAR(16)
);

CREATE TABLE job (
    jid        VARCHAR(32) PRIMARY KEY,
    fun        VARCHAR(255) NOT NULL,
    arg        TEXT NOT NULL,
    tgt        TEXT NOT NULL,
    tgt_type   VARCHAR(16) NOT NULL,
    minions    TEXT NOT NULL,
    actor      VARCHAR(128) NOT NULL,
    created_at TEXT NOT NULL,
    sealed_arg TEXT
);

CREATE TABLE job_return (
    jid        VARCHAR(32) NOT NULL REFERENCES job (jid) ON DELETE CASCADE,
    minion_id  VARCHAR(255) NOT NULL,
    ret        TEXT NOT NULL,
    retcode    INT NOT NULL,
    success    BOOLEAN NOT NULL,
    at         TEXT NOT NULL,
    PRIMARY KEY (jid, minion_id)
);

CREATE TABLE enrollment_token (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    name        VARCHAR(128) NOT NULL,
    token_hash  VARCHAR(64) NOT NULL,
    bk_biz_id   BIGINT NOT NULL REFERENCES business (bk_biz_id),
    uses        BIGINT NOT NULL DEFAULT 0,
    created_at  TEXT NOT NULL,
    expires_at  TEXT,
    revoked_at  TEXT,
    max_uses    BIGINT,
    id_glob     VARCHAR(255),
    CONSTRAINT enrollment_token_hash_unique UNIQUE (token_hash)
);

CREATE TABLE agent (
    id                  VARCHAR(255) PRIMARY KEY,
    bk_biz_id           BIGINT REFERENCES business (bk_biz_id) ON DELETE SET NULL,
    bk_host_id          BIGINT REFERENCES host (bk_host_id) ON DELETE SET NULL,
    version             VARCHAR(64),
    grains              TEXT NOT NULL,
    grains_digest       VARCHAR(64),
    heartbeat_seconds   INT NOT NULL,
    online              BOOLEAN NOT NULL,
    last_seen           TEXT,
    link_conflict       VARCHAR(32),
    link_conflict_ip    VARCHAR(64),
    link_conflict_cloud BIGINT,
    link_conflict_host  BIGINT,
    link_conflict_at    TEXT
);
CREATE INDEX agent_host ON agent (bk_host_id);

CREATE TABLE package (
    name         VARCHAR(64) NOT NULL,
    version      VARCHAR(64) NOT NULL,
    category     VARCHAR(16) NOT NULL,
    description  VARCHAR(1024),
    sha256       VARCHAR(64) NOT NULL,
    size_bytes   BIGINT NOT NULL,
    metadata     TEXT NOT NULL,
    notes        TEXT,
    source       VARCHAR(64) NOT NULL,
    uploaded_at  TEXT NOT NULL,
    PRIMARY KEY (name, version)
);

CREATE TABLE package_chunk (
    name    VARCHAR(64) NOT NULL,
    version VARCHAR(64) NOT NULL,
    seq     INTEGER NOT NULL,
    bytes   BLOB NOT NULL,
    PRIMARY KEY (name, version, seq)
);

CREATE TABLE registry (
    name        VARCHAR(64) PRIMARY KEY,
    type        VARCHAR(8) NOT NULL,
    url         VARCHAR(2048) NOT NULL,
    path        VARCHAR(1024),
    ref         VARCHAR(255),
    position    INT NOT NULL,
    created_at  TEXT NOT NULL
);

CREATE TABLE addon (
    name        VARCHAR(64) PRIMARY KEY,
    version     VARCHAR(64) NOT NULL,
    registry    VARCHAR(64) NOT NULL,
    params      TEXT NOT NULL,
    enabled_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    FOREIGN KEY (name, version) REFERENCES package (name, version)
);

CREATE TABLE subscription (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    name         VARCHAR(255) NOT NULL,
    bk_biz_id    BIGINT NOT NULL,
    object_type  VARCHAR(16) NOT NULL,
    node_type    VARCHAR(16) NOT NULL,
    spec         TEXT NOT NULL,
    enabled      BOOLEAN NOT NULL,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);

CREATE TABLE deployment (
    subscription_id  BIGINT NOT NULL REFERENCES subscription (id) ON DELETE CASCADE,
    instance_id      VARCHAR(128) NOT NULL,
    step_id          VARCHAR(64) NOT NULL,
    bk_host_id       BIGINT NOT NULL,
    bk_biz_id        BIGINT NOT NULL,
    plugin           VARCHAR(64) NOT NULL,
    group_id         VARCHAR(128) NOT NULL,
    version          VARCHAR(64) NOT NULL,
    status           VARCHAR(16) NOT NULL,
    files            TEXT NOT NULL,
    port             INT,
    updated_at       TEXT NOT NULL,
    PRIMARY KEY (subscription_id, instance_id, step_id, bk_host_id)
);
CREATE INDEX deployment_host ON deployment (bk_host_id);

CREATE TABLE port_allocation (
    bk_host_id       BIGINT NOT NULL,
    port             INT NOT NULL,
    subscription_id  BIGINT NOT NULL REFERENCES subscription (id) ON DELETE CASCADE,
    instance_id      VARCHAR(128) NOT NULL,
    step_id          VARCHAR(64) NOT NULL,
    allocated_at     TEXT NOT NULL,
    PRIMARY KEY (bk_host_id, port)
);
CREATE UNIQUE INDEX port_allocation_copy ON port_allocation (subscription_id, instance_id, step_id, bk_host_id);

CREATE TABLE task (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    subscription_id  BIGINT NOT NULL REFERENCES subscription (id) ON DELETE CASCADE,
    status           VARCHAR(16) NOT NULL,
    trigger_kind     VARCHAR(32) NOT NULL,
    actor            VARCHAR(255) NOT NULL,
    created_at       TEXT NOT NULL,
    started_at       TEXT,
    finished_at      TEXT,
    error            TEXT,
    owner            VARCHAR(64),
    lease_until      TEXT
);
CREATE INDEX task_subscription ON task (subscription_id, id);

CREATE TABLE task_instance (
    task_id      BIGINT NOT NULL REFERENCES task (id) ON DELETE CASCADE,
    instance_id  VARCHAR(128) NOT NULL,
    bk_host_id   BIGINT,
    status       VARCHAR(16) NOT NULL,
    steps        TEXT NOT NULL,
    error        TEXT,
    started_at   TEXT,
    finished_at  TEXT,
    PRIMARY KEY (task_id, instance_id)
);

CREATE TABLE plan_run (
    id          VARCHAR(128) PRIMARY KEY,
    name        VARCHAR(4096),
    jid         VARCHAR(20) NOT NULL,
    tgt         TEXT NOT NULL,
    tgt_type    VARCHAR(16) NOT NULL,
    minions     TEXT NOT NULL,
    document    TEXT NOT NULL,
    created_by  VARCHAR(255) NOT NULL,
    created_at  TEXT NOT NULL
);
CREATE INDEX plan_run_created ON plan_run (created_at);

CREATE TABLE plan_log (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    plan_id    VARCHAR(128) NOT NULL REFERENCES plan_run (id) ON DELETE CASCADE,
    agent_id   VARCHAR(255) NOT NULL,
    level      VARCHAR(16) NOT NULL,
    body       TEXT NOT NULL,
    logged_at  TEXT NOT NULL
);
CREATE INDEX plan_log_plan ON plan_log (plan_id, seq);

CREATE TABLE diag_object (
    kind             VARCHAR(16) NOT NULL,
    name             VARCHAR(253) NOT NULL,
    document         TEXT NOT NULL,
    paths            TEXT,
    builtin          BOOLEAN NOT NULL,
    last_schedule_at TEXT,
    updated_at       TEXT NOT NULL,
    PRIMARY KEY (kind, name)
);

CREATE TABLE diagnosis (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    name           VARCHAR(512) NOT NULL,
    operation_set  VARCHAR(253) NOT NULL,
    set_hash       VARCHAR(64) NOT NULL,
    host_id        BIGINT NOT NULL,
    host_name      VARCHAR(255),
    biz_id         BIGINT NOT NULL,
    agent_id       VARCHAR(255),
    source         VARCHAR(16) NOT NULL,
    trigger_name   VARCHAR(253),
    parameters     TEXT NOT NULL,
    phase          VARCHAR(16) NOT NULL,
    state          TEXT NOT NULL,
    created_by     VARCHAR(255) NOT NULL,
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL,
    owner          VARCHAR(64),
    lease_until    TEXT,
    sent_node      INTEGER,
    sent_jid       VARCHAR(32)
);
CREATE INDEX diagnosis_phase ON diagnosis (phase, id);
CREATE INDEX diagnosis_created ON diagnosis (created_at);

CREATE TABLE diag_alert (
    fingerprint VARCHAR(64) PRIMARY KEY,
    fired_at    TEXT NOT NULL
);

CREATE TABLE session_key (
    id         INTEGER PRIMARY KEY,
    generation BIGINT NOT NULL,
    sealed     VARCHAR(1024) NOT NULL,
    rotated_at TEXT NOT NULL
);

CREATE TABLE secret (
    bk_biz_id  BIGINT NOT NULL,
    name       VARCHAR(64) NOT NULL,
    sealed     TEXT NOT NULL,
    updated_by VARCHAR(128) NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (bk_biz_id, name)
);
