-- The upkeep of 0017, the same result in statements PostgreSQL plans cheaply: a result cost
-- 4–50 ms in the trigger (its statements joined the views `result_sides` and `pair_levels`
-- and took 3–7 ms each to plan), which held the writer, and every hand waiting for it.
--
-- The match's two teams are read once into an array. A pair's level is symmetric (the
-- equation is the same with its two teams swapped), so the reverse pairs copy the level of
-- the teams' own pairs; and only the opponents whose reverse pair changed level sum again
-- (their pair against the match's team changed nothing else).
CREATE OR REPLACE FUNCTION apply_record_change(change_sign BIGINT, changed BIGINT) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    sides BIGINT[];
    flipped BIGINT[];
BEGIN
    SELECT array_agg(s.team_id) INTO sides FROM result_sides s WHERE s.match_id = changed;
    IF sides IS NULL THEN
        RETURN;
    END IF;
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
    UPDATE head_to_head h
    SET level = (2 * a.won + a.tied) * greatest(b.played, 1)
                = (2 * b.won + b.tied) * greatest(a.played, 1)
    FROM team_records a, team_records b
    WHERE h.team_id = ANY (sides) AND a.team_id = h.team_id AND b.team_id = h.opponent_id
      AND h.level IS DISTINCT FROM ((2 * a.won + a.tied) * greatest(b.played, 1)
                                    = (2 * b.won + b.tied) * greatest(a.played, 1));
    WITH changed_pairs AS (
        UPDATE head_to_head h SET level = o.level
        FROM head_to_head o
        WHERE o.team_id = ANY (sides) AND h.team_id = o.opponent_id
          AND h.opponent_id = o.team_id AND h.level IS DISTINCT FROM o.level
        RETURNING h.team_id
    )
    SELECT array_agg(team_id) INTO flipped FROM changed_pairs;
    UPDATE team_records r SET (level_played, level_won, level_tied) = (
        SELECT coalesce(sum(h.played), 0), coalesce(sum(h.won), 0), coalesce(sum(h.tied), 0)
        FROM head_to_head h WHERE h.team_id = r.team_id AND h.level
    )
    WHERE r.team_id = ANY (sides || coalesce(flipped, '{}'));
END $$;
