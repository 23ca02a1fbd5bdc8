-- Plugin packages (the server's store), registries in lookup order, and enabled addons with sealed parameters.

CREATE TABLE package (
    name         VARCHAR(64) NOT NULL,
    version      VARCHAR(64) NOT NULL,
    category     VARCHAR(16) NOT NULL,
    description  VARCHAR(1024),
    sha256       VARCHAR(64) NOT NULL,
    size_bytes   BIGINT NOT NULL,
    metadata     VARCHAR NOT NULL,
    notes        VARCHAR,
    source       VARCHAR(64) NOT NULL,
    uploaded_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (name, version)
);

CREATE TABLE registry (
    name        VARCHAR(64) PRIMARY KEY,
    type        VARCHAR(8) NOT NULL,
    url         VARCHAR(2048) NOT NULL,
    path        VARCHAR(1024),
    ref         VARCHAR(255),
    position    INT NOT NULL,
    created_at  TIMESTAMP WITH TIME ZONE NOT NULL
);

CREATE TABLE addon (
    name        VARCHAR(64) PRIMARY KEY,
    version     VARCHAR(64) NOT NULL,
    registry    VARCHAR(64) NOT NULL,
    params      VARCHAR NOT NULL,
    enabled_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    updated_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    FOREIGN KEY (name, version) REFERENCES package (name, version)
);
