-- What the list pages read, so their cost is the rows they show, not the season's matches.

-- A team's page and calendar read its own matches through these (two index searches), not
-- the whole league's schedule.
CREATE INDEX matches_team_a ON matches(team_a, scheduled_at);
CREATE INDEX matches_team_b ON matches(team_b, scheduled_at);

-- How many matches each league has in each status, kept by triggers in the transaction of
-- every change (a hand changes no status: only a start, a result, a forfeit, a postponement
-- or a cancellation moves a count): the list of leagues and the league home count from
-- here. `check` compares it with the matches.
CREATE TABLE match_counts (
    league_id INTEGER NOT NULL REFERENCES leagues(id) ON DELETE CASCADE,
    status    TEXT NOT NULL,
    n         INTEGER NOT NULL,
    PRIMARY KEY (league_id, status)
) WITHOUT ROWID;

INSERT INTO match_counts SELECT league_id, status, count(*) FROM matches GROUP BY league_id, status;

CREATE TRIGGER match_counts_insert AFTER INSERT ON matches
BEGIN
    INSERT INTO match_counts VALUES (NEW.league_id, NEW.status, 1)
    ON CONFLICT (league_id, status) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER match_counts_delete AFTER DELETE ON matches
BEGIN
    UPDATE match_counts SET n = n - 1 WHERE league_id = OLD.league_id AND status = OLD.status;
END;

CREATE TRIGGER match_counts_update AFTER UPDATE OF league_id, status ON matches
WHEN OLD.status IS NOT NEW.status OR OLD.league_id IS NOT NEW.league_id
BEGIN
    UPDATE match_counts SET n = n - 1 WHERE league_id = OLD.league_id AND status = OLD.status;
    INSERT INTO match_counts VALUES (NEW.league_id, NEW.status, 1)
    ON CONFLICT (league_id, status) DO UPDATE SET n = n + 1;
END;
