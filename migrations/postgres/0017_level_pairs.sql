-- Each head-to-head pair says whether its two teams are level on win %, and each team's
-- record carries its sum over its level pairs (what the head-to-head tiebreak reads), both
-- kept in the result's own transaction (the SQLite migration 0029 says why and what level
-- means).
ALTER TABLE head_to_head ADD COLUMN level BOOLEAN NOT NULL DEFAULT FALSE;

CREATE VIEW pair_levels AS
SELECT h.team_id, h.opponent_id,
       (2 * a.won + a.tied) * greatest(b.played, 1)
           = (2 * b.won + b.tied) * greatest(a.played, 1) AS level
FROM head_to_head h
JOIN team_records a ON a.team_id = h.team_id
JOIN team_records b ON b.team_id = h.opponent_id;

UPDATE head_to_head h SET level = p.level
FROM pair_levels p WHERE p.team_id = h.team_id AND p.opponent_id = h.opponent_id;

CREATE INDEX head_to_head_level ON head_to_head (team_id) INCLUDE (played, won, tied)
WHERE level;

ALTER TABLE team_records ADD COLUMN level_played BIGINT NOT NULL DEFAULT 0;
ALTER TABLE team_records ADD COLUMN level_won BIGINT NOT NULL DEFAULT 0;
ALTER TABLE team_records ADD COLUMN level_tied BIGINT NOT NULL DEFAULT 0;

UPDATE team_records r SET (level_played, level_won, level_tied) = (
    SELECT coalesce(sum(h.played), 0), coalesce(sum(h.won), 0), coalesce(sum(h.tied), 0)
    FROM head_to_head h WHERE h.team_id = r.team_id AND h.level
);

-- As in 0001, and then the pairs of the match's teams (both ways) take their new level, and
-- the match's teams and their opponents sum their level pairs again.
CREATE OR REPLACE FUNCTION apply_record_change(change_sign BIGINT, changed BIGINT) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO team_records AS r (team_id, played, won, lost, tied, forfeits, points_for,
                                   points_against, rating_sum, rating_count)
    SELECT s.team_id, change_sign, change_sign * s.won, change_sign * s.lost,
           change_sign * s.tied, change_sign * s.forfeits, change_sign * s.points_for,
           change_sign * s.points_against, change_sign * s.rating_sum,
           change_sign * s.rating_count
    FROM result_sides s WHERE s.match_id = changed
    ON CONFLICT (team_id) DO UPDATE SET
        played = r.played + excluded.played, won = r.won + excluded.won,
        lost = r.lost + excluded.lost, tied = r.tied + excluded.tied,
        forfeits = r.forfeits + excluded.forfeits,
        points_for = r.points_for + excluded.points_for,
        points_against = r.points_against + excluded.points_against,
        rating_sum = r.rating_sum + excluded.rating_sum,
        rating_count = r.rating_count + excluded.rating_count;
    INSERT INTO head_to_head AS h (team_id, opponent_id, played, won, tied)
    SELECT s.team_id, s.opponent_id, change_sign, change_sign * s.won, change_sign * s.tied
    FROM result_sides s WHERE s.match_id = changed
    ON CONFLICT (team_id, opponent_id) DO UPDATE SET
        played = h.played + excluded.played, won = h.won + excluded.won,
        tied = h.tied + excluded.tied;
    -- The teams' own pairs, then the reverse pairs (found through the own ones, so both
    -- are ranges of the primary key).
    UPDATE head_to_head h SET level = p.level
    FROM pair_levels p
    WHERE h.team_id IN (SELECT s.team_id FROM result_sides s WHERE s.match_id = changed)
      AND p.team_id = h.team_id AND p.opponent_id = h.opponent_id
      AND h.level IS DISTINCT FROM p.level;
    UPDATE head_to_head h SET level = p.level
    FROM pair_levels p
    WHERE h.team_id IN (
            SELECT o.opponent_id FROM head_to_head o
            WHERE o.team_id IN (SELECT s.team_id FROM result_sides s WHERE s.match_id = changed))
      AND h.opponent_id IN (SELECT s.team_id FROM result_sides s WHERE s.match_id = changed)
      AND p.team_id = h.team_id AND p.opponent_id = h.opponent_id
      AND h.level IS DISTINCT FROM p.level;
    UPDATE team_records r SET (level_played, level_won, level_tied) = (
        SELECT coalesce(sum(h.played), 0), coalesce(sum(h.won), 0), coalesce(sum(h.tied), 0)
        FROM head_to_head h WHERE h.team_id = r.team_id AND h.level
    )
    WHERE r.team_id IN (
        SELECT s.team_id FROM result_sides s WHERE s.match_id = changed
        UNION
        SELECT o.opponent_id FROM head_to_head o
        WHERE o.team_id IN (SELECT s.team_id FROM result_sides s WHERE s.match_id = changed)
    );
END $$;
