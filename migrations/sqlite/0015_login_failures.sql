-- Failed password checks, for the login throttle (src/service/throttle.rs), kept in the
-- database so that every instance of the service sees the same failures and a restart does
-- not hand a guesser a fresh budget. One row per failure and key: `pair <ip> <username>`,
-- `client <ip>`, `user <username>`. Rows older than the throttle's window are deleted.
CREATE TABLE login_failures (
    key TEXT NOT NULL,
    at  TEXT NOT NULL
) STRICT;
CREATE INDEX login_failures_key ON login_failures (key, at);
CREATE INDEX login_failures_at ON login_failures (at);
