-- A counter of every change to what the public pages show, bumped by triggers in the same
-- transaction as the change (whoever makes it: the server, or the CLI's demo and generate).
-- The server keeps anonymous visitors' pages rendered once per counter value
-- (src/web/page_cache.rs): reading the counter is one tiny query, so a page costs about as
-- much as /healthz however many hands or teams it shows, and is never older than the last
-- commit.
CREATE TABLE data_version (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n INTEGER NOT NULL
) STRICT;

INSERT INTO data_version (id, n) VALUES (1, 0);

CREATE TRIGGER data_version_leagues_insert AFTER INSERT ON leagues
BEGIN UPDATE data_version SET n = n + 1; END;

CREATE TRIGGER data_version_leagues_update AFTER UPDATE ON leagues
BEGIN UPDATE data_version SET n = n + 1; END;

CREATE TRIGGER data_version_leagues_delete AFTER DELETE ON leagues
BEGIN UPDATE data_version SET n = n + 1; END;

CREATE TRIGGER data_version_teams_insert AFTER INSERT ON teams
BEGIN UPDATE data_version SET n = n + 1; END;

CREATE TRIGGER data_version_teams_update AFTER UPDATE ON teams
BEGIN UPDATE data_version SET n = n + 1; END;

CREATE TRIGGER data_version_teams_delete AFTER DELETE ON teams
BEGIN UPDATE data_version SET n = n + 1; END;

CREATE TRIGGER data_version_matches_insert AFTER INSERT ON matches
BEGIN UPDATE data_version SET n = n + 1; END;

CREATE TRIGGER data_version_matches_update AFTER UPDATE ON matches
BEGIN UPDATE data_version SET n = n + 1; END;

CREATE TRIGGER data_version_matches_delete AFTER DELETE ON matches
BEGIN UPDATE data_version SET n = n + 1; END;

CREATE TRIGGER data_version_hands_insert AFTER INSERT ON hands
BEGIN UPDATE data_version SET n = n + 1; END;

CREATE TRIGGER data_version_hands_update AFTER UPDATE ON hands
BEGIN UPDATE data_version SET n = n + 1; END;

CREATE TRIGGER data_version_hands_delete AFTER DELETE ON hands
BEGIN UPDATE data_version SET n = n + 1; END;

CREATE TRIGGER data_version_brackets_insert AFTER INSERT ON brackets
BEGIN UPDATE data_version SET n = n + 1; END;

CREATE TRIGGER data_version_brackets_update AFTER UPDATE ON brackets
BEGIN UPDATE data_version SET n = n + 1; END;

CREATE TRIGGER data_version_brackets_delete AFTER DELETE ON brackets
BEGIN UPDATE data_version SET n = n + 1; END;

CREATE TRIGGER data_version_bracket_seeds_insert AFTER INSERT ON bracket_seeds
BEGIN UPDATE data_version SET n = n + 1; END;

CREATE TRIGGER data_version_bracket_seeds_update AFTER UPDATE ON bracket_seeds
BEGIN UPDATE data_version SET n = n + 1; END;

CREATE TRIGGER data_version_bracket_seeds_delete AFTER DELETE ON bracket_seeds
BEGIN UPDATE data_version SET n = n + 1; END;

CREATE TRIGGER data_version_bracket_matches_insert AFTER INSERT ON bracket_matches
BEGIN UPDATE data_version SET n = n + 1; END;

CREATE TRIGGER data_version_bracket_matches_update AFTER UPDATE ON bracket_matches
BEGIN UPDATE data_version SET n = n + 1; END;

CREATE TRIGGER data_version_bracket_matches_delete AFTER DELETE ON bracket_matches
BEGIN UPDATE data_version SET n = n + 1; END;

-- The scoreboard reads the matches in play across leagues: without this it scans every match
-- of every season (2.9 ms at 78,570 matches against 0.2 ms at 785).
CREATE INDEX matches_in_play ON matches(status) WHERE status = 'in_progress';

-- The league home reads this week's matches and the latest results by scheduled time.
CREATE INDEX matches_schedule ON matches(league_id, scheduled_at, id);
