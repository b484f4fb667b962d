-- League night: accounts, leagues, teams, matches and their hands (DESIGN §3–4).
-- Hands are revisions: a correction adds a row, nothing is updated in place.

CREATE TABLE users (
    id            INTEGER PRIMARY KEY,
    username      TEXT NOT NULL UNIQUE COLLATE NOCASE,
    password_hash TEXT NOT NULL,
    role          TEXT NOT NULL CHECK (role IN ('admin', 'supervisor')),
    created_at    TEXT NOT NULL
) STRICT;

CREATE TABLE sessions (
    id_hash    TEXT PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    csrf_token TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
) STRICT;

CREATE TABLE api_tokens (
    id           INTEGER PRIMARY KEY,
    user_id      INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    token_hash   TEXT NOT NULL UNIQUE,
    created_at   TEXT NOT NULL,
    revoked_at   TEXT
) STRICT;

CREATE TABLE leagues (
    id             INTEGER PRIMARY KEY,
    slug           TEXT NOT NULL UNIQUE,
    name           TEXT NOT NULL,
    rules_regular  TEXT NOT NULL,   -- the rules as given (preset name or object), JSON
    rules_playoff  TEXT NOT NULL,
    rules_final    TEXT NOT NULL,
    tiebreak_order TEXT NOT NULL DEFAULT 'head_to_head,differential,points_for',
    created_at     TEXT NOT NULL
) STRICT;

CREATE TABLE teams (
    id        INTEGER PRIMARY KEY,
    league_id INTEGER NOT NULL REFERENCES leagues(id),
    name      TEXT NOT NULL,
    player1   TEXT NOT NULL,
    player2   TEXT NOT NULL,
    withdrawn INTEGER NOT NULL DEFAULT 0 CHECK (withdrawn IN (0, 1)),
    UNIQUE (league_id, name)
) STRICT;

CREATE TABLE league_supervisors (
    league_id INTEGER NOT NULL REFERENCES leagues(id),
    user_id   INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    PRIMARY KEY (league_id, user_id)
) STRICT;

CREATE TABLE matches (
    id            INTEGER PRIMARY KEY,
    league_id     INTEGER NOT NULL REFERENCES leagues(id),
    stage         TEXT NOT NULL CHECK (stage IN ('regular', 'playoff', 'final')),
    round         INTEGER,
    team_a        INTEGER NOT NULL REFERENCES teams(id),
    team_b        INTEGER NOT NULL REFERENCES teams(id),
    table_name    TEXT,
    scheduled_at  TEXT,
    status        TEXT NOT NULL DEFAULT 'scheduled'
                  CHECK (status IN ('scheduled', 'in_progress', 'complete', 'forfeit', 'cancelled')),
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
    CHECK (team_a <> team_b)
) STRICT;
CREATE INDEX matches_league ON matches(league_id, status);

CREATE TABLE hands (
    id          INTEGER PRIMARY KEY,
    match_id    INTEGER NOT NULL REFERENCES matches(id),
    number      INTEGER NOT NULL,
    revision    INTEGER NOT NULL,
    hand        TEXT NOT NULL,      -- the Hand of API.md, JSON
    reason      TEXT,               -- why a correction was made
    recorded_by INTEGER REFERENCES users(id),
    recorded_at TEXT NOT NULL,
    UNIQUE (match_id, number, revision)
) STRICT;

CREATE TABLE idempotency_keys (
    match_id   INTEGER NOT NULL REFERENCES matches(id),
    key        TEXT NOT NULL,
    response   TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (match_id, key)
) STRICT;

CREATE TABLE audit_log (
    id        INTEGER PRIMARY KEY,
    at        TEXT NOT NULL,
    user_id   INTEGER REFERENCES users(id),
    action    TEXT NOT NULL,
    entity    TEXT NOT NULL,
    entity_id INTEGER,
    before    TEXT,
    after     TEXT,
    reason    TEXT
) STRICT;
