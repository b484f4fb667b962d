-- Idempotency keys of the console's actions other than a new hand (the SQLite migration
-- 0026 says why and what).
CREATE TABLE action_keys (
    match_id   BIGINT NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
    key        TEXT COLLATE "C" NOT NULL,
    action     TEXT COLLATE "C" NOT NULL,
    request    TEXT COLLATE "C" NOT NULL,
    response   TEXT COLLATE "C" NOT NULL,
    created_at TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (match_id, key)
);

CREATE INDEX action_keys_created ON action_keys (created_at);
