-- The league and the match each audit row belongs to, for the audit's filters
-- (GET /api/v1/audit, /admin/audit): a change to a team, player, match or bracket belongs to
-- its league, a change to a match to that match too. Filled when the row is written
-- (src/db/audit.rs, the same CASE as here) and kept as plain numbers without a foreign key,
-- so the rows of a match or league deleted later still answer its filter.
ALTER TABLE audit_log ADD COLUMN league_id INTEGER;
ALTER TABLE audit_log ADD COLUMN match_id INTEGER;

UPDATE audit_log SET
    league_id = CASE entity
        WHEN 'league' THEN entity_id
        WHEN 'team' THEN (SELECT league_id FROM teams WHERE id = audit_log.entity_id)
        WHEN 'player' THEN (SELECT league_id FROM players WHERE id = audit_log.entity_id)
        WHEN 'match' THEN (SELECT league_id FROM matches WHERE id = audit_log.entity_id)
        WHEN 'bracket' THEN (SELECT league_id FROM brackets WHERE id = audit_log.entity_id)
    END,
    match_id = CASE entity WHEN 'match' THEN entity_id END;

CREATE INDEX audit_log_league ON audit_log(league_id, id);
CREATE INDEX audit_log_match ON audit_log(match_id, id);
CREATE INDEX audit_log_user ON audit_log(user_id, id);
