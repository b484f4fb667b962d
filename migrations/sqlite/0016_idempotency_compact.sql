-- An idempotency key keeps what answering it again needs, not the whole answer: the answer
-- to a hand is the match with every hand so far, so keeping it made a match's keys grow with
-- the square of its hands (51 KB a hand over a 150-hand match). The answer is rebuilt
-- instead from the hands as they were (`hand_id`: the revision the key recorded; the hands
-- of the match stored up to it, each at its latest revision then, are the hands answered)
-- and the little of the match that can change after a hand and is not rebuilt from its hands
-- (docs/api.md §7.3). Keys are deleted a week after their first use (`created_at`).
--
-- Every key stored so far is converted from its answer: the hand it recorded is revision 1
-- of the answer's last hand.
CREATE TABLE idempotency_keys_compact (
    match_id       INTEGER NOT NULL REFERENCES matches(id),
    key            TEXT NOT NULL,
    -- The hand as first sent (JSON), to refuse the key with another hand; NULL for keys
    -- stored before migration 0006.
    request        TEXT,
    hand_id        INTEGER NOT NULL REFERENCES hands(id),
    -- The match in the first answer: its version, table, time call, teams' names, and the
    -- sportsmanship ratings (JSON; NULL when its league did not rate).
    version        INTEGER NOT NULL,
    table_name     TEXT,
    time_called_at TEXT,
    team_a_name    TEXT NOT NULL,
    team_b_name    TEXT NOT NULL,
    sportsmanship  TEXT,
    created_at     TEXT NOT NULL,
    PRIMARY KEY (match_id, key)
) STRICT;

INSERT INTO idempotency_keys_compact
SELECT k.match_id, k.key, k.request, h.id,
       json_extract(k.response, '$.version'),
       json_extract(k.response, '$.table'),
       json_extract(k.response, '$.time_called_at'),
       json_extract(k.response, '$.team_a.name'),
       json_extract(k.response, '$.team_b.name'),
       json_extract(k.response, '$.sportsmanship'),
       k.created_at
FROM idempotency_keys k
JOIN hands h ON h.match_id = k.match_id
            AND h.number = json_array_length(k.response, '$.hands')
            AND h.revision = 1;

DROP TABLE idempotency_keys;
ALTER TABLE idempotency_keys_compact RENAME TO idempotency_keys;

-- The expiry deletes the oldest keys first.
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
