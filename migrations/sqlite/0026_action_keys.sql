-- Idempotency keys of the console's actions other than a new hand (a correction, a time
-- call, a forfeit, a check-in, sportsmanship ratings, a lineup, a match start; docs/api.md
-- §7.8): a key sent again answers the first answer again instead of acting twice. Written in
-- the action's own transaction, so a key is kept exactly when its action was done. Hands keep
-- theirs in `idempotency_keys`.
CREATE TABLE action_keys (
    -- A key belongs to its match; the match's deletion takes its keys along.
    match_id   INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
    key        TEXT NOT NULL,
    -- What the key did: `correct_hand`, `call_time`, `forfeit`, `check_in`,
    -- `rate_sportsmanship`, `set_lineup`, `start`.
    action     TEXT NOT NULL,
    -- SHA-256 (hex) of the request as first read, to refuse the key with another request;
    -- a digest, so a lineup's student ids are not kept twice.
    request    TEXT NOT NULL,
    -- The body of the first answer (JSON), answered again as it was.
    response   TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (match_id, key)
) STRICT;

-- The expiry (a week after first use) deletes the oldest keys first.
CREATE INDEX action_keys_created ON action_keys (created_at);
