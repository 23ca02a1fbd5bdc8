-- Fleet upgrades through the running agents (docs/operations.md, "Upgrading agents"): a task, and one row per agent
-- with its batch, the version it ran before and its state.
CREATE TABLE agent_upgrade_task (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    bk_biz_id         BIGINT NOT NULL,
    status            VARCHAR(16) NOT NULL,
    version           VARCHAR(64) NOT NULL,
    tgt               VARCHAR(4096) NOT NULL,
    tgt_type          VARCHAR(16) NOT NULL,
    batch_size        INT NOT NULL,
    max_failure_ratio DOUBLE PRECISION NOT NULL,
    wait_seconds      INT NOT NULL,
    created_by        VARCHAR(128) NOT NULL,
    created_at        TEXT NOT NULL,
    finished_at       TEXT
);

CREATE TABLE agent_upgrade_host (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id      BIGINT NOT NULL REFERENCES agent_upgrade_task (id) ON DELETE CASCADE,
    agent_id     VARCHAR(255) NOT NULL,
    batch        INT NOT NULL,
    arch         VARCHAR(16),
    from_version VARCHAR(64),
    version      VARCHAR(64),
    status       VARCHAR(16) NOT NULL,
    error        VARCHAR(2048),
    log          VARCHAR(1024),
    started_at   TEXT,
    finished_at  TEXT
);
CREATE INDEX agent_upgrade_host_task ON agent_upgrade_host (task_id);
