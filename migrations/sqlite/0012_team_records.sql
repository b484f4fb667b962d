-- The standings kept up to date in the result's own transaction (docs/scoring.md §7), so the
-- first view after a result reads one row per team instead of the season's matches.
--
-- `result_sides` says what a finished regular-season match gives each of its two teams. It
-- is the one place those rules are written in SQL; the triggers below subtract a match's
-- sides before a change and add them after, so any sequence of hands, corrections,
-- forfeits, ratings and reschedules leaves the records equal to a sum over the matches.
-- `check` compares them with the standings computed from the matches in Rust.
CREATE VIEW result_sides AS
SELECT id AS match_id, team_a AS team_id, team_b AS opponent_id,
       (status = 'complete' AND winner IS 'a') OR (status = 'forfeit' AND forfeit IS 'b') AS won,
       (status = 'complete' AND winner IS 'b')
           OR (status = 'forfeit' AND (forfeit IS NULL OR forfeit IN ('a', 'both'))) AS lost,
       (status = 'complete' AND winner IS NULL) AS tied,
       (status = 'forfeit' AND (forfeit IS NULL OR forfeit IN ('a', 'both'))) AS forfeits,
       CASE WHEN status = 'complete' THEN score_a ELSE 0 END AS points_for,
       CASE WHEN status = 'complete' THEN score_b ELSE 0 END AS points_against,
       CASE WHEN rating_a >= 0 THEN rating_a ELSE 0 END AS rating_sum,
       coalesce(rating_a >= 0, 0) AS rating_count
FROM matches WHERE stage = 'regular' AND status IN ('complete', 'forfeit')
UNION ALL
SELECT id, team_b, team_a,
       (status = 'complete' AND winner IS 'b') OR (status = 'forfeit' AND forfeit IS 'a'),
       (status = 'complete' AND winner IS 'a')
           OR (status = 'forfeit' AND (forfeit IS NULL OR forfeit IN ('b', 'both'))),
       (status = 'complete' AND winner IS NULL),
       (status = 'forfeit' AND (forfeit IS NULL OR forfeit IN ('b', 'both'))),
       CASE WHEN status = 'complete' THEN score_b ELSE 0 END,
       CASE WHEN status = 'complete' THEN score_a ELSE 0 END,
       CASE WHEN rating_b >= 0 THEN rating_b ELSE 0 END,
       coalesce(rating_b >= 0, 0)
FROM matches WHERE stage = 'regular' AND status IN ('complete', 'forfeit');

-- A team's regular-season record; no row: nothing finished yet.
CREATE TABLE team_records (
    team_id        INTEGER PRIMARY KEY REFERENCES teams(id) ON DELETE CASCADE,
    played         INTEGER NOT NULL,
    won            INTEGER NOT NULL,
    lost           INTEGER NOT NULL,
    tied           INTEGER NOT NULL,
    forfeits       INTEGER NOT NULL,
    points_for     INTEGER NOT NULL,
    points_against INTEGER NOT NULL,
    rating_sum     INTEGER NOT NULL,
    rating_count   INTEGER NOT NULL
);

-- A team's record against one opponent: the head-to-head tiebreak reads only the tied teams'.
CREATE TABLE head_to_head (
    team_id     INTEGER NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
    opponent_id INTEGER NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
    played      INTEGER NOT NULL,
    won         INTEGER NOT NULL,
    tied        INTEGER NOT NULL,
    PRIMARY KEY (team_id, opponent_id)
) WITHOUT ROWID;

INSERT INTO team_records
SELECT team_id, count(*), sum(won), sum(lost), sum(tied), sum(forfeits), sum(points_for),
       sum(points_against), sum(rating_sum), sum(rating_count)
FROM result_sides GROUP BY team_id;

INSERT INTO head_to_head
SELECT team_id, opponent_id, count(*), sum(won), sum(tied)
FROM result_sides GROUP BY team_id, opponent_id;

-- A change to the records: a match's sides, +1 once it counts, -1 when it stops counting
-- or changes. The trigger on it applies the change to both tables and deletes it, so the
-- table is always empty between statements; the match triggers only say which sides move.
CREATE TABLE record_changes (
    sign        INTEGER NOT NULL CHECK (sign IN (-1, 1)),
    match_id    INTEGER NOT NULL
);

CREATE TRIGGER record_changes_apply AFTER INSERT ON record_changes
BEGIN
    INSERT INTO team_records
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
    INSERT INTO head_to_head
    SELECT team_id, opponent_id, NEW.sign, NEW.sign * won, NEW.sign * tied
    FROM result_sides WHERE match_id = NEW.match_id AND true
    ON CONFLICT (team_id, opponent_id) DO UPDATE SET
        played = played + excluded.played, won = won + excluded.won,
        tied = tied + excluded.tied;
    DELETE FROM record_changes WHERE rowid = NEW.rowid;
END;

-- Only a finished regular match counts, so a hand of a match in play fires none of these.
-- The sides are read from the match row itself: before the change to take it out, after
-- it to put it back.
CREATE TRIGGER team_records_before_update
BEFORE UPDATE OF stage, status, team_a, team_b, winner, forfeit, score_a, score_b, rating_a, rating_b
ON matches
WHEN OLD.stage = 'regular' AND OLD.status IN ('complete', 'forfeit')
BEGIN
    INSERT INTO record_changes VALUES (-1, OLD.id);
END;

CREATE TRIGGER team_records_after_update
AFTER UPDATE OF stage, status, team_a, team_b, winner, forfeit, score_a, score_b, rating_a, rating_b
ON matches
WHEN NEW.stage = 'regular' AND NEW.status IN ('complete', 'forfeit')
BEGIN
    INSERT INTO record_changes VALUES (1, NEW.id);
END;

CREATE TRIGGER team_records_after_insert AFTER INSERT ON matches
WHEN NEW.stage = 'regular' AND NEW.status IN ('complete', 'forfeit')
BEGIN
    INSERT INTO record_changes VALUES (1, NEW.id);
END;

CREATE TRIGGER team_records_before_delete BEFORE DELETE ON matches
WHEN OLD.stage = 'regular' AND OLD.status IN ('complete', 'forfeit')
BEGIN
    INSERT INTO record_changes VALUES (-1, OLD.id);
END;

-- The records replace the counter that keyed a cache of each league's computed standings:
-- reading the standings now costs one row per team, with nothing to recompute.
DROP TRIGGER standings_match_insert;
DROP TRIGGER standings_match_update;
DROP TRIGGER standings_match_delete;
DROP TRIGGER standings_team_insert;
DROP TRIGGER standings_team_update;
ALTER TABLE leagues DROP COLUMN standings_version;
