-- An idempotency key keeps what answering it again needs, not the whole answer (the SQLite
-- migration 0016 says why and what): every key stored so far is converted from its answer.
ALTER TABLE idempotency_keys
    ADD COLUMN hand_id        BIGINT REFERENCES hands(id),
    ADD COLUMN version        BIGINT,
    ADD COLUMN table_name     TEXT COLLATE "C",
    ADD COLUMN time_called_at TEXT COLLATE "C",
    ADD COLUMN team_a_name    TEXT COLLATE "C",
    ADD COLUMN team_b_name    TEXT COLLATE "C",
    ADD COLUMN sportsmanship  TEXT COLLATE "C";

UPDATE idempotency_keys k
SET hand_id        = h.id,
    version        = (k.response::jsonb ->> 'version')::bigint,
    table_name     = k.response::jsonb ->> 'table',
    time_called_at = k.response::jsonb ->> 'time_called_at',
    team_a_name    = k.response::jsonb -> 'team_a' ->> 'name',
    team_b_name    = k.response::jsonb -> 'team_b' ->> 'name',
    sportsmanship  = NULLIF((k.response::jsonb -> 'sportsmanship')::text, 'null')
FROM hands h
WHERE h.match_id = k.match_id
  AND h.number = jsonb_array_length(k.response::jsonb -> 'hands')
  AND h.revision = 1;

DELETE FROM idempotency_keys WHERE hand_id IS NULL;

ALTER TABLE idempotency_keys
    DROP COLUMN response,
    ALTER COLUMN hand_id SET NOT NULL,
    ALTER COLUMN version SET NOT NULL,
    ALTER COLUMN team_a_name SET NOT NULL,
    ALTER COLUMN team_b_name SET NOT NULL;

-- The expiry deletes the oldest keys first.
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
