-- The agent call a diagnosis sent for the node on its checkpoint, recorded before the agent gets it: a server that
-- takes the diagnosis over asks for that job's answer instead of running the node again.
ALTER TABLE diagnosis ADD COLUMN sent_node INTEGER;
ALTER TABLE diagnosis ADD COLUMN sent_jid VARCHAR(32);
