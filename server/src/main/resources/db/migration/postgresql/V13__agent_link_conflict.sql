-- Why an agent stays unlinked: the address it claimed is a host of another business than its admission's, or a host
-- that already has an agent (reason other_business / host_has_agent). Kept until the agent is linked, so that a
-- restart neither forgets it nor records it again.
ALTER TABLE agent ADD COLUMN link_conflict VARCHAR(32);
ALTER TABLE agent ADD COLUMN link_conflict_ip VARCHAR(64);
ALTER TABLE agent ADD COLUMN link_conflict_cloud BIGINT;
ALTER TABLE agent ADD COLUMN link_conflict_host BIGINT;
ALTER TABLE agent ADD COLUMN link_conflict_at TIMESTAMP WITH TIME ZONE;
