-- The rows every job return writes, made fewer and cheaper (issue 34).
--
-- A return is kept on its agent's job_agent row (the row the job inserted PUBLISHED): storing it is one update of
-- that row, where it was an insert into job_return (with a foreign-key check against job) and an update of job_agent.
-- One row per agent and job holds its state and, once it answered, its return.
ALTER TABLE job_agent ADD COLUMN ret VARCHAR;
ALTER TABLE job_agent ADD COLUMN retcode INTEGER;
ALTER TABLE job_agent ADD COLUMN success BOOLEAN;
ALTER TABLE job_agent ADD COLUMN returned_at TIMESTAMP WITH TIME ZONE;

INSERT INTO job_agent (jid, minion_id, state, state_at)
SELECT r.jid, r.minion_id, 'RETURNED', r.at FROM job_return r
ON CONFLICT DO NOTHING;
UPDATE job_agent a SET ret = r.ret, retcode = r.retcode, success = r.success, returned_at = r.at
FROM job_return r WHERE r.jid = a.jid AND r.minion_id = a.minion_id;
DROP TABLE job_return;

-- Only unpublished events are looked up by `published` (the publisher's pass over the outbox). Job returns, most of
-- the events, are written already published: with a partial index they add no entry to it, and the publisher's scan
-- does not walk the entries of events published long ago.
DROP INDEX event_outbox_unpublished;
CREATE INDEX event_outbox_unpublished ON event_outbox (id) WHERE published = FALSE;
