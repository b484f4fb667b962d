-- Conduct at the table (docs/api.md §6.9): when each team checked in before the start, the
-- sportsmanship rating each team got after the match (with the supervisor's note), and the
-- coordinator's eligibility overrides. NULL everywhere is "not yet", so every match made
-- before this migration reads as not checked in and not rated.
ALTER TABLE matches ADD COLUMN checked_in_a TEXT;
ALTER TABLE matches ADD COLUMN checked_in_b TEXT;
ALTER TABLE matches ADD COLUMN rating_a INTEGER;
ALTER TABLE matches ADD COLUMN rating_b INTEGER;
ALTER TABLE matches ADD COLUMN rating_note TEXT;

-- An admin's decision on a team's playoff eligibility, over what the rules compute.
CREATE TABLE eligibility_overrides (
    team_id   INTEGER PRIMARY KEY REFERENCES teams(id),
    eligible  INTEGER NOT NULL CHECK (eligible IN (0, 1)),
    reason    TEXT NOT NULL,
    set_by    INTEGER NOT NULL REFERENCES users(id),
    set_at    TEXT NOT NULL
) STRICT;

CREATE TRIGGER data_version_overrides_insert AFTER INSERT ON eligibility_overrides
BEGIN UPDATE data_version SET n = n + 1; END;

CREATE TRIGGER data_version_overrides_update AFTER UPDATE ON eligibility_overrides
BEGIN UPDATE data_version SET n = n + 1; END;

CREATE TRIGGER data_version_overrides_delete AFTER DELETE ON eligibility_overrides
BEGIN UPDATE data_version SET n = n + 1; END;
