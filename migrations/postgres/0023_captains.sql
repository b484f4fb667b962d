-- Captains sign in without a password (the SQLite migration 0032 says why and what).
CREATE TABLE captain_links (
    token_hash TEXT COLLATE "C" PRIMARY KEY,
    email      TEXT COLLATE "C" NOT NULL,
    created_at TEXT COLLATE "C" NOT NULL,
    expires_at TEXT COLLATE "C" NOT NULL,
    used_at    TEXT COLLATE "C"
);
CREATE INDEX captain_links_email ON captain_links (email, created_at);

CREATE TABLE captain_sessions (
    id_hash    TEXT COLLATE "C" PRIMARY KEY,
    email      TEXT COLLATE "C" NOT NULL,
    csrf_token TEXT COLLATE "C" NOT NULL,
    created_at TEXT COLLATE "C" NOT NULL,
    expires_at TEXT COLLATE "C" NOT NULL
);

ALTER TABLE audit_log ADD COLUMN captain TEXT;
