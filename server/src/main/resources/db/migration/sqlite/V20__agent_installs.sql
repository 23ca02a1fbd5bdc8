-- Agent installs over SSH (docs/operations.md, "Over SSH"): a task, one row per host with its steps (JSON), and the
-- host keys seen on first contact. No credential is ever stored: they live in memory for a task's run only.
CREATE TABLE agent_install_task (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    bk_biz_id   BIGINT NOT NULL,
    status      VARCHAR(16) NOT NULL,
    created_by  VARCHAR(128) NOT NULL,
    ssh_user    VARCHAR(64) NOT NULL,
    jump        VARCHAR(512),
    masters     VARCHAR(4096) NOT NULL,
    concurrency INT NOT NULL,
    created_at  TEXT NOT NULL,
    finished_at TEXT
);

CREATE TABLE agent_install_host (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id     BIGINT NOT NULL REFERENCES agent_install_task (id) ON DELETE CASCADE,
    address     VARCHAR(255) NOT NULL,
    port        INT NOT NULL,
    agent_id    VARCHAR(255) NOT NULL,
    inner_ip    VARCHAR(64),
    bk_host_id  BIGINT,
    prefix      VARCHAR(1024),
    status      VARCHAR(16) NOT NULL,
    error       VARCHAR(2048),
    arch        VARCHAR(16),
    version     VARCHAR(64),
    steps       TEXT NOT NULL,
    started_at  TEXT,
    finished_at TEXT
);
CREATE INDEX agent_install_host_task ON agent_install_host (task_id);

CREATE TABLE ssh_host_key (
    address     VARCHAR(255) NOT NULL,
    port        INT NOT NULL,
    key_type    VARCHAR(64) NOT NULL,
    fingerprint VARCHAR(128) NOT NULL,
    first_seen  TEXT NOT NULL,
    PRIMARY KEY (address, port)
);
