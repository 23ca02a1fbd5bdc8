-- The AES session key the servers of a cluster share (sealed with the cluster's secret.key), and its generation:
-- an agent that moves to another server keeps its session, and a rotation on one server reaches all of them.
CREATE TABLE session_key (
    id         INTEGER PRIMARY KEY,
    generation BIGINT NOT NULL,
    sealed     VARCHAR(1024) NOT NULL,
    rotated_at TIMESTAMP WITH TIME ZONE NOT NULL
);
