-- Which server runs a subscription task or a diagnosis, and until when its lease holds. The owner renews the lease
-- while it runs; when a server stops, its leases run out and another server (or the same one, started again) takes
-- the work over.
ALTER TABLE task ADD COLUMN owner VARCHAR(64);
ALTER TABLE task ADD COLUMN lease_until TIMESTAMP WITH TIME ZONE;
ALTER TABLE diagnosis ADD COLUMN owner VARCHAR(64);
ALTER TABLE diagnosis ADD COLUMN lease_until TIMESTAMP WITH TIME ZONE;
