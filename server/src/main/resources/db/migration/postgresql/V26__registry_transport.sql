-- A registry read in clear over the network (http:// or git:// to a host other than this machine) is refused unless
-- the operator accepts it. Registries added before this rule and read in clear are marked as accepted, so that an
-- upgrade stops nothing a fleet depends on; the listing shows them as insecure.
ALTER TABLE registry ADD COLUMN insecure BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE registry SET insecure = TRUE
WHERE type IN ('http', 'git') AND (LOWER(url) LIKE 'http://%' OR LOWER(url) LIKE 'git://%');
