-- The league home's latest results (`ORDER BY scheduled_at DESC NULLS LAST, id DESC`), read
-- in index order so that LIMIT 10 reads 10 rows. `matches_finished` (league_id,
-- scheduled_at, id) read backwards gives `scheduled_at DESC NULLS FIRST`: PostgreSQL would
-- read every finished match of the league and sort them. (SQLite puts NULLs first when
-- ascending, so its index of migration 0011 serves the same query read backwards.)
DROP INDEX matches_finished;
CREATE INDEX matches_finished ON matches (league_id, scheduled_at DESC NULLS LAST, id DESC)
    WHERE status IN ('complete', 'forfeit');
