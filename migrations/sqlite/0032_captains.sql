-- Captains sign in without a password (docs/api.md §20): a link by email, valid 15 minutes
-- and used once, then a session like a log-in's. Emails are stored in lower case (the
-- service folds them), tokens and session ids only as their SHA-256.
CREATE TABLE captain_links (
    token_hash TEXT PRIMARY KEY,
    email      TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at    TEXT
) STRICT;
-- The links asked for one address in the last hour (at most 5).
CREATE INDEX captain_links_email ON captain_links (email, created_at);

CREATE TABLE captain_sessions (
    id_hash    TEXT PRIMARY KEY,
    email      TEXT NOT NULL,
    csrf_token TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
) STRICT;

-- A change a captain made (a lineup, a default, a request, a dispute) names them here, by
-- name and team ("Kim Lee, captain of Aces"), never by email; user_id is then NULL.
ALTER TABLE audit_log ADD COLUMN captain TEXT;
