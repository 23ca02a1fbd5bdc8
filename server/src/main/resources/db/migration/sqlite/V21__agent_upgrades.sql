-- Fleet upgrades through the running agents (docs/operations.md, "Upgrading agents"): a task, and one row per agent
-- with its batch, the version it ran before and its state. The server running a task renews its lease
-- (owner, lease_until: WorkLeaseStore); a running task whose lease ran out belongs to a server that stopped and is
-- failed by the next server to see it. cancel_requested: the task starts no further batch. allow_downgrade: agents
-- that run a newer version may be taken down to it.
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
    finished_at       TEXT,
    owner             VARCHAR(64),
    lease_until       TEXT,
    cancel_requested  BOOLEAN NOT NULL DEFAULT FALSE,
    allow_downgrade   BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE INDEX agent_upgrade_task_biz ON agent_upgrade_task (bk_biz_id, id);

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

-- The agents of running tasks, one row each: the database refuses a second running upgrade of an agent, whichever
-- server starts it. Filled with the task, emptied when it ends.
CREATE TABLE agent_upgrade_busy (
    agent_id VARCHAR(255) NOT NULL PRIMARY KEY,
    task_id  BIGINT NOT NULL REFERENCES agent_upgrade_task (id) ON DELETE CASCADE
);
CREATE INDEX agent_upgrade_busy_task ON agent_upgrade_busy (task_id);
