-- Each agent's state in a job, recorded when it happens (AgentJobState): PUBLISHED when the job is sent, RECEIVED and
-- RUNNING from the agent's own events, RETURNED with its return, TIMED_OUT and AGENT_LOST by the housekeeping sweep,
-- CANCELLED by POST /jobs/{jid}/cancel. One row per agent and job, keyed for keyset paging (GET /jobs/{jid}/returns):
-- a job to 100,000 agents is 100,000 narrow rows, read a page at a time.
CREATE TABLE job_agent (
    jid       VARCHAR(32) NOT NULL REFERENCES job (jid) ON DELETE CASCADE,
    minion_id VARCHAR(255) NOT NULL,
    state     VARCHAR(16) NOT NULL,
    state_at  TEXT NOT NULL,
    PRIMARY KEY (jid, minion_id)
);

-- When a job's agents that have not returned are recorded TIMED_OUT (null: the job has no timeout).
ALTER TABLE job ADD COLUMN timeout_at TEXT;
CREATE INDEX job_timeout_at ON job (timeout_at);
CREATE INDEX IF NOT EXISTS job_created_at ON job (created_at);

INSERT OR IGNORE INTO job_agent (jid, minion_id, state, state_at)
SELECT j.jid, m.value, CASE WHEN r.jid IS NULL THEN 'PUBLISHED' ELSE 'RETURNED' END, COALESCE(r.at, j.created_at)
FROM job j, json_each(j.minions) AS m
LEFT JOIN job_return r ON r.jid = j.jid AND r.minion_id = m.value;
