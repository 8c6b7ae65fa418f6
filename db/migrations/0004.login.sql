-- depends: 0003.vector
-- Login limits that cannot be turned against a customer, in a table that cannot grow without bound.

-- Each limit row says when it stops mattering, so any hit can sweep stale rows of any bucket
-- (a bucket named after a random email is never hit twice, so it could never sweep itself).
ALTER TABLE rate_limit_hits ADD COLUMN expires_at timestamptz;
UPDATE rate_limit_hits SET expires_at = window_start + interval '1 day';
ALTER TABLE rate_limit_hits ALTER COLUMN expires_at SET NOT NULL;
CREATE INDEX rate_limit_hits_expires_idx ON rate_limit_hits (expires_at);

-- Browsers that logged in to an account before: their logins are limited per device, not per
-- email, so guesses at an email from elsewhere never lock its owner out (web/devices.py).
CREATE TABLE web_login_devices (
    token_hash     text PRIMARY KEY,
    customer_email text NOT NULL REFERENCES users (email) ON DELETE CASCADE,
    created_at     timestamptz NOT NULL DEFAULT now(),
    expires_at     timestamptz NOT NULL
);
CREATE INDEX web_login_devices_email_idx ON web_login_devices (customer_email, created_at);
