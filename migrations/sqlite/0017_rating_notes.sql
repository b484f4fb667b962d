-- Sportsmanship notes, one per match and author (docs/api.md §6.11). The note was a column of
-- the match: the console showed it to every supervisor of the league, and whoever rated next
-- replaced it. A note is now its writer's: seen by its author and the admins, replaced only
-- by its author's next rating. A note kept from before gets its author from the audit log
-- (the rating that wrote it); NULL when none is found, and such a note is for admins only.
CREATE TABLE rating_notes (
    match_id  INTEGER NOT NULL REFERENCES matches(id),
    author_id INTEGER REFERENCES users(id),
    note      TEXT NOT NULL,
    UNIQUE (match_id, author_id)
) STRICT;

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
