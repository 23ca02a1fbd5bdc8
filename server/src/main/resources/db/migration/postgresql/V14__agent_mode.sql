-- How an accepted minion talks to the server (drover: a session key of its own; salt: the shared key; salt-signed:
-- the shared key with signed returns and events), as it last signed in or was heard. Null until it signs in.
ALTER TABLE minion_key ADD COLUMN transport_mode VARCHAR(16);
