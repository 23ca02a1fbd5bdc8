-- API tokens may be given a lifetime (drover token create --ttl-hours); NULL: the token does not expire.
ALTER TABLE api_token ADD COLUMN expires_at TIMESTAMP WITH TIME ZONE;
