-- depends: 0001.schema
-- Web sessions and rate limits live in PostgreSQL so every worker process shares them.

CREATE TABLE web_sessions (
    token_hash     text PRIMARY KEY,
    customer_email text NOT NULL REFERENCES users (email) ON DELETE CASCADE,
    created_at     timestamptz NOT NULL DEFAULT now(),
    expires_at     timestamptz NOT NULL,
    revoked_at     timestamptz
);
CREATE INDEX web_sessions_email_idx ON web_sessions (customer_email);
CREATE INDEX web_sessions_expires_idx ON web_sessions (expires_at);

CREATE TABLE rate_limit_hits (
    bucket       text NOT NULL,
    window_start timestamptz NOT NULL,
    hits         integer NOT NULL CHECK (hits > 0),
    PRIMARY KEY (bucket, window_start)
);
