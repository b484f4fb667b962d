-- Swiss rounds (docs/api.md §21.2): one row for each round paired, with the team that had
-- the bye when the field was odd (a win, at most one for each team). A league plays Swiss
-- rounds once it has a row here; its matches are ordinary regular-season matches.
CREATE TABLE swiss_rounds (
    league_id    BIGINT NOT NULL REFERENCES leagues(id),
    round        BIGINT NOT NULL CHECK (round >= 1),
    bye_team_id  BIGINT REFERENCES teams(id),
    paired_at    TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (league_id, round)
);
CREATE UNIQUE INDEX swiss_rounds_one_bye ON swiss_rounds (league_id, bye_team_id);

-- A past season's rounds are read-only, as its matches are (migrations 0012 and 0019).
CREATE TRIGGER archived_swiss_rounds BEFORE INSERT OR UPDATE OR DELETE ON swiss_rounds
    FOR EACH ROW EXECUTE FUNCTION refuse_archived_league_write();

-- The check-in desk of a tournament night (docs/api.md §21.4): when the team arrived (null:
-- not checked in). Once any team of a league is checked in, its Swiss rounds pair only the
-- teams checked in.
ALTER TABLE teams ADD COLUMN checked_in_at TEXT COLLATE "C";
