-- A rerunSubscriptions node records the tasks it started in sent_jid (tasks:<subscription>=<task>,…), so a node
-- resumed after a stop waits for them instead of starting new ones: the list outgrows a job id's 32 characters.
ALTER TABLE diagnosis ALTER COLUMN sent_jid TYPE TEXT;
