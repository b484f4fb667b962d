-- The captain's voice (docs/api.md §20): a default, reschedule requests and disputes.

-- A default is a forfeit the team announced in time: the match is a loss for it and a win
-- for the other team, but never a forfeit (not towards `drop_after` or `max_forfeits`).
ALTER TABLE matches ADD COLUMN defaulted INTEGER NOT NULL DEFAULT 0 CHECK (defaulted IN (0, 1));

-- As in 0012, a default's side counts no forfeit. The triggers read the view by name.
DROP VIEW result_sides;
CREATE VIEW result_sides AS
SELECT id AS match_id, team_a AS team_id, team_b AS opponent_id,
       (status = 'complete' AND winner IS 'a') OR (status = 'forfeit' AND forfeit IS 'b') AS won,
       (status = 'complete' AND winner IS 'b')
           OR (status = 'forfeit' AND (forfeit IS NULL OR forfeit IN ('a', 'both'))) AS lost,
       (status = 'complete' AND winner IS NULL) AS tied,
       (status = 'forfeit' AND NOT defaulted AND (forfeit IS NULL OR forfeit IN ('a', 'both'))) AS forfeits,
       CASE WHEN status = 'complete' THEN score_a ELSE 0 END AS points_for,
       CASE WHEN status = 'complete' THEN score_b ELSE 0 END AS points_against,
       CASE WHEN rating_a >= 0 THEN rating_a ELSE 0 END AS rating_sum,
       coalesce(rating_a >= 0, 0) AS rating_count
FROM matches WHERE stage = 'regular' AND status IN ('complete', 'forfeit')
UNION ALL
SELECT id, team_b, team_a,
       (status = 'complete' AND winner IS 'b') OR (status = 'forfeit' AND forfeit IS 'a'),
       (status = 'complete' AND winner IS 'a')
           OR (status = 'forfeit' AND (forfeit IS NULL OR forfeit IN ('b', 'both'))),
       (status = 'complete' AND winner IS NULL),
       (status = 'forfeit' AND NOT defaulted AND (forfeit IS NULL OR forfeit IN ('b', 'both'))),
       CASE WHEN status = 'complete' THEN score_b ELSE 0 END,
       CASE WHEN status = 'complete' THEN score_a ELSE 0 END,
       CASE WHEN rating_b >= 0 THEN rating_b ELSE 0 END,
       coalesce(rating_b >= 0, 0)
FROM matches WHERE stage = 'regular' AND status IN ('complete', 'forfeit');

-- A captain asks to move a match: a reason and one to three proposed times (JSON list of
-- `YYYY-MM-DDTHH:MM`); the coordinator approves one (the match moves) or declines.
CREATE TABLE reschedule_requests (
    id           INTEGER PRIMARY KEY,
    match_id     INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
    team_id      INTEGER NOT NULL REFERENCES teams(id),
    captain      TEXT NOT NULL,
    reason       TEXT NOT NULL,
    proposals    TEXT NOT NULL,
    status       TEXT NOT NULL DEFAULT 'pending'
                 CHECK (status IN ('pending', 'approved', 'declined')),
    answer       TEXT,
    created_at   TEXT NOT NULL,
    decided_at   TEXT
) STRICT;
CREATE INDEX reschedule_requests_status ON reschedule_requests (status, id);

-- A captain protests a recorded result within the league's window; the coordinator
-- resolves it with a note.
CREATE TABLE disputes (
    id           INTEGER PRIMARY KEY,
    match_id     INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
    team_id      INTEGER NOT NULL REFERENCES teams(id),
    captain      TEXT NOT NULL,
    category     TEXT NOT NULL
                 CHECK (category IN ('scoring', 'eligibility', 'sportsmanship', 'result')),
    reason       TEXT NOT NULL,
    status       TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
    note         TEXT,
    created_at   TEXT NOT NULL,
    resolved_at  TEXT
) STRICT;
CREATE INDEX disputes_status ON disputes (status, id);

-- A past season's requests are read-only, as its matches are (migration 0024).
CREATE TRIGGER archived_reschedule_requests_insert BEFORE INSERT ON reschedule_requests
    WHEN (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM matches WHERE id = NEW.match_id)) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_reschedule_requests_update BEFORE UPDATE ON reschedule_requests
    WHEN (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM matches WHERE id = OLD.match_id)) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

-- A past season's requests are read-only, as its matches are (migration 0024).
CREATE TRIGGER archived_disputes_insert BEFORE INSERT ON disputes
    WHEN (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM matches WHERE id = NEW.match_id)) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_disputes_update BEFORE UPDATE ON disputes
    WHEN (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM matches WHERE id = OLD.match_id)) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;
