-- The number of hands of a match, cached with its totals (rebuilt from the hands whenever
-- they change), so the list pages (schedule, results, team pages) never read the hands:
-- their time stays flat in the number of hands played.
ALTER TABLE matches ADD COLUMN hands_played INTEGER NOT NULL DEFAULT 0;

UPDATE matches SET hands_played =
    (SELECT count(DISTINCT number) FROM hands WHERE hands.match_id = matches.id);

-- A counter bumped whenever something the standings depend on changes: a finished regular
-- match (or one that stops being finished), a team. The web layer keeps each league's
-- standings computed once per counter value, so the standings page and API cost the rows
-- shown, not the season's matches or hands.
ALTER TABLE leagues ADD COLUMN standings_version INTEGER NOT NULL DEFAULT 0;

CREATE TRIGGER standings_match_insert AFTER INSERT ON matches
WHEN NEW.status IN ('complete', 'forfeit')
BEGIN
    UPDATE leagues SET standings_version = standings_version + 1 WHERE id = NEW.league_id;
END;

CREATE TRIGGER standings_match_update AFTER UPDATE ON matches
WHEN NEW.status IN ('complete', 'forfeit') OR OLD.status IN ('complete', 'forfeit')
BEGIN
    UPDATE leagues SET standings_version = standings_version + 1 WHERE id = NEW.league_id;
END;

CREATE TRIGGER standings_match_delete AFTER DELETE ON matches
BEGIN
    UPDATE leagues SET standings_version = standings_version + 1 WHERE id = OLD.league_id;
END;

CREATE TRIGGER standings_team_insert AFTER INSERT ON teams
BEGIN
    UPDATE leagues SET standings_version = standings_version + 1 WHERE id = NEW.league_id;
END;

CREATE TRIGGER standings_team_update AFTER UPDATE ON teams
BEGIN
    UPDATE leagues SET standings_version = standings_version + 1 WHERE id = NEW.league_id;
END;

-- The standings read only a league's finished regular-season matches.
CREATE INDEX matches_results ON matches(league_id, stage, status);
