-- A rerunSubscriptions node records the tasks it started in sent_jid (tasks:<subscription>=<task>,…), so a node
-- resumed after a stop waits for them instead of starting new ones. PostgreSQL widens the column to TEXT; SQLite
-- does not enforce VARCHAR lengths, so there is nothing to change here (the version stays the same on both).
SELECT 1;
