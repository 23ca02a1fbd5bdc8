-- Enrollment tokens may admit a limited number of agents and only ids that match a glob.
ALTER TABLE enrollment_token ADD COLUMN max_uses BIGINT;
ALTER TABLE enrollment_token ADD COLUMN id_glob VARCHAR(255);
