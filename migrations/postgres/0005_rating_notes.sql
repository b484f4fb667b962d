-- Sportsmanship notes, one per match and author (the SQLite migration 0016).
CREATE TABLE rating_notes (
    match_id  BIGINT NOT NULL REFERENCES matches(id),
    author_id BIGINT REFERENCES users(id),
    note      TEXT COLLATE "C" NOT NULL,
    UNIQUE (match_id, author_id)
);

INSERT INTO rating_notes (match_id, author_id, note)
SELECT m.id,
       (SELECT a.user_id FROM audit_log a
         WHERE a.action = 'rate_sportsmanship' AND a.entity = 'match' AND a.entity_id = m.id
           AND a.reason = m.rating_note
         ORDER BY a.id DESC LIMIT 1),
       m.rating_note
FROM matches m
WHERE m.rating_note IS NOT NULL
ORDER BY m.id;

ALTER TABLE matches DROP COLUMN rating_note;
