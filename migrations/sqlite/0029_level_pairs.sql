-- The head-to-head tiebreak (docs/scoring.md §7.3) reads each team's record against the
-- teams level with it on win %. Reading every pair of a league to find the level ones cost
-- 14–22 ms at 1,024 teams. So each pair now says whether its two teams are level, and each
-- team's record carries its sum over its level pairs, both kept in the result's own
-- transaction like the records: the standings read one row per team and nothing else.
--
-- Level means equal win % ((won + tied / 2) / played, 0 with nothing played), compared
-- exactly in integers: (2 won + tied) × the other's games, with at least 1 game each side.
ALTER TABLE head_to_head ADD COLUMN level INTEGER NOT NULL DEFAULT 0 CHECK (level IN (0, 1));

-- The one place the SQL says what level is.
CREATE VIEW pair_levels AS
SELECT h.team_id, h.opponent_id,
       (2 * a.won + a.tied) * max(b.played, 1) = (2 * b.won + b.tied) * max(a.played, 1) AS level
FROM head_to_head h
JOIN team_records a ON a.team_id = h.team_id
JOIN team_records b ON b.team_id = h.opponent_id;

UPDATE head_to_head SET level = coalesce((
    SELECT p.level FROM pair_levels p
    WHERE p.team_id = head_to_head.team_id AND p.opponent_id = head_to_head.opponent_id
), 0);

-- Each team's level pairs, with the counts the tiebreak sums (`level` too, or SQLite would
-- read the table's row to check it).
CREATE INDEX head_to_head_level ON head_to_head (team_id, level, played, won, tied) WHERE level;

-- A team's record against the teams level with it: the sum over its level pairs.
ALTER TABLE team_records ADD COLUMN level_played INTEGER NOT NULL DEFAULT 0;
ALTER TABLE team_records ADD COLUMN level_won INTEGER NOT NULL DEFAULT 0;
ALTER TABLE team_records ADD COLUMN level_tied INTEGER NOT NULL DEFAULT 0;

UPDATE team_records SET (level_played, level_won, level_tied) = (
    SELECT coalesce(sum(h.played), 0), coalesce(sum(h.won), 0), coalesce(sum(h.tied), 0)
    FROM head_to_head h WHERE h.team_id = team_records.team_id AND h.level
);

-- As in 0012, and then the pairs of the match's teams (both ways) take their new level
-- (only those two teams' records moved), and the match's teams and their opponents (whose
-- pairs those are) sum their level pairs again.
DROP TRIGGER record_changes_apply;
CREATE TRIGGER record_changes_apply AFTER INSERT ON record_changes
BEGIN
    INSERT INTO team_records (team_id, played, won, lost, tied, forfeits, points_for,
                              points_against, rating_sum, rating_count)
    SELECT team_id, NEW.sign, NEW.sign * won, NEW.sign * lost, NEW.sign * tied,
           NEW.sign * forfeits, NEW.sign * points_for, NEW.sign * points_against,
           NEW.sign * rating_sum, NEW.sign * rating_count
    FROM result_sides WHERE match_id = NEW.match_id AND true
    ON CONFLICT (team_id) DO UPDATE SET
        played = played + excluded.played, won = won + excluded.won,
        lost = lost + excluded.lost, tied = tied + excluded.tied,
        forfeits = forfeits + excluded.forfeits, points_for = points_for + excluded.points_for,
        points_against = points_against + excluded.points_against,
        rating_sum = rating_sum + excluded.rating_sum,
        rating_count = rating_count + excluded.rating_count;
    INSERT INTO head_to_head (team_id, opponent_id, played, won, tied)
    SELECT team_id, opponent_id, NEW.sign, NEW.sign * won, NEW.sign * tied
    FROM result_sides WHERE match_id = NEW.match_id AND true
    ON CONFLICT (team_id, opponent_id) DO UPDATE SET
        played = played + excluded.played, won = won + excluded.won,
        tied = tied + excluded.tied;
    -- The match's teams' own pairs, then the reverse pairs (found through the own ones, so
    -- both are ranges of the primary key).
    UPDATE head_to_head SET level = coalesce((
        SELECT p.level FROM pair_levels p
        WHERE p.team_id = head_to_head.team_id AND p.opponent_id = head_to_head.opponent_id
    ), 0)
    WHERE team_id IN (SELECT team_id FROM result_sides WHERE match_id = NEW.match_id AND true);
    UPDATE head_to_head SET level = coalesce((
        SELECT p.level FROM pair_levels p
        WHERE p.team_id = head_to_head.team_id AND p.opponent_id = head_to_head.opponent_id
    ), 0)
    WHERE team_id IN (
        SELECT h.opponent_id FROM head_to_head h
        WHERE h.team_id IN (SELECT team_id FROM result_sides WHERE match_id = NEW.match_id AND true)
    )
      AND opponent_id IN (SELECT team_id FROM result_sides WHERE match_id = NEW.match_id AND true);
    UPDATE team_records SET (level_played, level_won, level_tied) = (
        SELECT coalesce(sum(h.played), 0), coalesce(sum(h.won), 0), coalesce(sum(h.tied), 0)
        FROM head_to_head h WHERE h.team_id = team_records.team_id AND h.level
    )
    WHERE team_id IN (
        SELECT team_id FROM result_sides WHERE match_id = NEW.match_id AND true
        UNION
        SELECT h.opponent_id FROM head_to_head h
        WHERE h.team_id IN (SELECT team_id FROM result_sides WHERE match_id = NEW.match_id AND true)
    );
    DELETE FROM record_changes WHERE rowid = NEW.rowid;
END;
