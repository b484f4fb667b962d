-- Playoffs (DESIGN §3 "Playoffs"): one bracket per league. The structure is rebuilt by
-- league::bracket from (format, teams, third_place, grand_final); these rows keep the seeds,
-- every bracket match (index of the bracket module, section, round, position, the seeds
-- known so far) and the real match once both entrants are known.

CREATE TABLE brackets (
    id          INTEGER PRIMARY KEY,
    league_id   INTEGER NOT NULL UNIQUE REFERENCES leagues(id),
    format      TEXT NOT NULL CHECK (format IN ('single_elimination', 'double_elimination')),
    teams       INTEGER NOT NULL CHECK (teams >= 2),
    third_place INTEGER NOT NULL DEFAULT 0 CHECK (third_place IN (0, 1)),
    grand_final TEXT NOT NULL DEFAULT 'none' CHECK (grand_final IN ('none', 'simple', 'double')),
    created_at  TEXT NOT NULL
) STRICT;

-- Seed 1 is the first team of the standings when the bracket was made.
CREATE TABLE bracket_seeds (
    bracket_id INTEGER NOT NULL REFERENCES brackets(id),
    seed       INTEGER NOT NULL CHECK (seed >= 1),
    team_id    INTEGER NOT NULL REFERENCES teams(id),
    PRIMARY KEY (bracket_id, seed),
    UNIQUE (bracket_id, team_id)
) STRICT;

CREATE TABLE bracket_matches (
    bracket_id  INTEGER NOT NULL REFERENCES brackets(id),
    match_index INTEGER NOT NULL,   -- the bracket module's index (topological order)
    section     TEXT NOT NULL CHECK (section IN ('winners', 'losers', 'final', 'third_place')),
    round       INTEGER NOT NULL,   -- 1-based within its section
    position    INTEGER NOT NULL,   -- 0-based within its round
    seed_a      INTEGER,            -- the entrants known so far (null: not known, or a bye)
    seed_b      INTEGER,
    match_id    INTEGER UNIQUE REFERENCES matches(id),  -- once both entrants are known
    PRIMARY KEY (bracket_id, match_index)
) STRICT;
