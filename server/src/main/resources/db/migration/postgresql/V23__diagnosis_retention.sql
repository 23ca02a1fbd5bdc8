-- The retention keeps the newest ended diagnoses of each host: found per host, newest first.
CREATE INDEX diagnosis_host ON diagnosis (host_id, id);
