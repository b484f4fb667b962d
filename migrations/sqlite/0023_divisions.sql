-- Divisions of a league (say "Competitive" and "Recreational"): each team is in at most one,
-- the round robin may pair teams only within their division, the standings rank each
-- division, and the playoffs may seed the division winners first. Plain rows, so an export
-- reads them as they are. A team's division is NULL until the admin gives one.
CREATE TABLE divisions (
    id        INTEGER PRIMARY KEY,
    league_id INTEGER NOT NULL REFERENCES leagues(id),
    name      TEXT NOT NULL,
    UNIQUE (league_id, name)
) STRICT;

ALTER TABLE teams ADD COLUMN division_id INTEGER REFERENCES divisions(id);

-- How the bracket's seeds were made, in words, when the division winners went first
-- ("Seeds 1–2: the winners of Competitive and Recreational; seeds 3–8 by overall
-- standing"); NULL when seeded by the overall standings alone.
ALTER TABLE brackets ADD COLUMN seeding_words TEXT;

-- The public pages show divisions (standings, teams): a change renders them anew.
CREATE TRIGGER data_version_divisions_insert AFTER INSERT ON divisions
BEGIN UPDATE data_version SET n = n + 1; END;

CREATE TRIGGER data_version_divisions_update AFTER UPDATE ON divisions
BEGIN UPDATE data_version SET n = n + 1; END;

CREATE TRIGGER data_version_divisions_delete AFTER DELETE ON divisions
BEGIN UPDATE data_version SET n = n + 1; END;
