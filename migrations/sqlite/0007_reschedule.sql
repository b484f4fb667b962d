-- no-transaction
-- A schedule the coordinator can change (docs/api.md §6.8): a match may be `postponed`
-- (no time until it gets a new one), and each match keeps what a calendar subscriber needs to
-- follow it: `sequence` (iCalendar SEQUENCE, bumped at every change of time, place, teams or
-- status) and `status_note` (why it was postponed or cancelled).
--
-- SQLite cannot change a CHECK constraint in place, so the table is rebuilt as its manual
-- says (https://sqlite.org/lang_altertable.html, "Making Other Kinds Of Table Schema
-- Changes"): foreign keys off outside the transaction, copy, drop, rename, indexes and
-- triggers again, then the foreign keys checked before the commit.
PRAGMA foreign_keys = OFF;

BEGIN;

CREATE TABLE new_matches (
    id            INTEGER PRIMARY KEY,
    league_id     INTEGER NOT NULL REFERENCES leagues(id),
    stage         TEXT NOT NULL CHECK (stage IN ('regular', 'playoff', 'final')),
    round         INTEGER,
    team_a        INTEGER NOT NULL REFERENCES teams(id),
    team_b        INTEGER NOT NULL REFERENCES teams(id),
    table_name    TEXT,
    scheduled_at  TEXT,
    status        TEXT NOT NULL DEFAULT 'scheduled'
                  CHECK (status IN ('scheduled', 'postponed', 'in_progress', 'complete', 'forfeit', 'cancelled')),
    started_at    TEXT,
    time_called_at TEXT,
    rules         TEXT,             -- resolved rules frozen at start, JSON
    forfeit       TEXT CHECK (forfeit IN ('a', 'b', 'both')),
    version       INTEGER NOT NULL DEFAULT 1,
    -- Cached totals, rebuilt from the hands whenever they change.
    score_a       INTEGER NOT NULL DEFAULT 0,
    score_b       INTEGER NOT NULL DEFAULT 0,
    bags_a        INTEGER NOT NULL DEFAULT 0,
    bags_b        INTEGER NOT NULL DEFAULT 0,
    game_status   TEXT NOT NULL DEFAULT 'in_progress',
    winner        TEXT CHECK (winner IN ('a', 'b')),
    reason        TEXT,
    hands_played  INTEGER NOT NULL DEFAULT 0,
    sequence      INTEGER NOT NULL DEFAULT 0,
    status_note   TEXT,
    CHECK (team_a <> team_b),
    CHECK (status <> 'postponed' OR scheduled_at IS NULL)
) STRICT;

INSERT INTO new_matches (id, league_id, stage, round, team_a, team_b, table_name, scheduled_at,
                         status, started_at, time_called_at, rules, forfeit, version, score_a,
                         score_b, bags_a, bags_b, game_status, winner, reason, hands_played)
SELECT id, league_id, stage, round, team_a, team_b, table_name, scheduled_at,
       status, started_at, time_called_at, rules, forfeit, version, score_a,
       score_b, bags_a, bags_b, game_status, winner, reason, hands_played
FROM matches;

DROP TABLE matches;
ALTER TABLE new_matches RENAME TO matches;

CREATE INDEX matches_league ON matches(league_id, status);
CREATE INDEX matches_results ON matches(league_id, stage, status);
CREATE INDEX matches_in_play ON matches(status) WHERE status = 'in_progress';
CREATE INDEX matches_schedule ON matches(league_id, scheduled_at, id);

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

CREATE TRIGGER data_version_matches_insert AFTER INSERT ON matches
BEGIN UPDATE data_version SET n = n + 1; END;

CREATE TRIGGER data_version_matches_update AFTER UPDATE ON matches
BEGIN UPDATE data_version SET n = n + 1; END;

CREATE TRIGGER data_version_matches_delete AFTER DELETE ON matches
BEGIN UPDATE data_version SET n = n + 1; END;

-- The copy is a change every cached page must see.
UPDATE data_version SET n = n + 1;

COMMIT;

PRAGMA foreign_keys = ON;
