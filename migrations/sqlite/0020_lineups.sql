-- Who sat at the table (docs/api.md, "Lineups"): a team's two players in seat order, from
-- hand `from_hand` on. A lineup set before the first hand has from_hand 1; a substitution
-- after hand n adds a row from hand n + 1, so the hands already played keep who played
-- them. Setting a lineup again before any hand of its own replaces the row.
CREATE TABLE lineups (
    match_id  INTEGER NOT NULL REFERENCES matches(id),
    team      TEXT NOT NULL CHECK (team IN ('a', 'b')),
    from_hand INTEGER NOT NULL CHECK (from_hand >= 1),
    seat1     INTEGER NOT NULL REFERENCES players(id),
    seat2     INTEGER NOT NULL REFERENCES players(id),
    set_by    INTEGER REFERENCES users(id),
    set_at    TEXT NOT NULL,
    PRIMARY KEY (match_id, team, from_hand),
    CHECK (seat1 <> seat2)
) STRICT;
-- A player's lineups (statistics, eligibility, a person's export).
CREATE INDEX lineups_seat1 ON lineups (seat1);
CREATE INDEX lineups_seat2 ON lineups (seat2);
