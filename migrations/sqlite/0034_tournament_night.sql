-- Swiss rounds (docs/api.md §21.2): one row for each round paired, with the team that had
-- the bye when the field was odd (a win, at most one for each team). A league plays Swiss
-- rounds once it has a row here; its matches are ordinary regular-season matches.
CREATE TABLE swiss_rounds (
    league_id    INTEGER NOT NULL REFERENCES leagues(id),
    round        INTEGER NOT NULL CHECK (round >= 1),
    bye_team_id  INTEGER REFERENCES teams(id),
    paired_at    TEXT NOT NULL,
    PRIMARY KEY (league_id, round)
) STRICT;
CREATE UNIQUE INDEX swiss_rounds_one_bye ON swiss_rounds (league_id, bye_team_id);

-- A past season's rounds are read-only, as its matches are (migration 0024).
CREATE TRIGGER archived_swiss_rounds_insert BEFORE INSERT ON swiss_rounds
    WHEN (SELECT archived FROM leagues WHERE id = NEW.league_id) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_swiss_rounds_update BEFORE UPDATE ON swiss_rounds
    WHEN (SELECT archived FROM leagues WHERE id = OLD.league_id) = 1 OR (SELECT archived FROM leagues WHERE id = NEW.league_id) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_swiss_rounds_delete BEFORE DELETE ON swiss_rounds
    WHEN (SELECT archived FROM leagues WHERE id = OLD.league_id) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

-- The check-in desk of a tournament night (docs/api.md §21.4): when the team arrived (null:
-- not checked in). Once any team of a league is checked in, its Swiss rounds pair only the
-- teams checked in.
ALTER TABLE teams ADD COLUMN checked_in_at TEXT;
