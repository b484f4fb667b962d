-- A team's players (docs/api.md, "Players"): 2 to 8 a team, each with an optional student
-- id (unique within a league: one team per player per league) and email. Both are personal
-- data, shown to admins only. A player who played is deactivated, never deleted, so a
-- lineup can point at a player's id for good.
--
-- teams.player1 and teams.player2 stay: they are the team's first two active players, kept
-- in step by the service, and what the public pages and the console's seats show.
CREATE TABLE players (
    id         INTEGER PRIMARY KEY,
    team_id    INTEGER NOT NULL REFERENCES teams(id),
    league_id  INTEGER NOT NULL REFERENCES leagues(id),
    name       TEXT NOT NULL,
    student_id TEXT,
    email      TEXT,
    captain    INTEGER NOT NULL DEFAULT 0 CHECK (captain IN (0, 1)),
    active     INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    created_at TEXT NOT NULL
) STRICT;
CREATE UNIQUE INDEX players_student_id ON players (league_id, student_id)
    WHERE student_id IS NOT NULL;
CREATE INDEX players_team ON players (team_id, id);

-- Every existing team's two players, in seat order, added when their league was.
INSERT INTO players (team_id, league_id, name, created_at)
SELECT team_id, league_id, name, created_at FROM (
    SELECT t.id AS team_id, t.league_id, t.player1 AS name, l.created_at, 1 AS seat
    FROM teams t JOIN leagues l ON l.id = t.league_id
    UNION ALL
    SELECT t.id, t.league_id, t.player2, l.created_at, 2
    FROM teams t JOIN leagues l ON l.id = t.league_id
)
ORDER BY team_id, seat;
