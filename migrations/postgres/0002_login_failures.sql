-- Failed password checks, for the login throttle (the SQLite migration 0015).
CREATE TABLE login_failures (
    key TEXT COLLATE "C" NOT NULL,
    at  TEXT COLLATE "C" NOT NULL
);
CREATE INDEX login_failures_key ON login_failures (key, at);
CREATE INDEX login_failures_at ON login_failures (at);
