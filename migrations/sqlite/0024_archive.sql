-- Past seasons (docs/api.md §18.2): an archived league is read-only. The database itself
-- refuses every write to an archived league's rows (its row, teams, supervisors, players,
-- matches with their check-ins and ratings, hands, lineups, notes, overrides, bracket) with
-- the error `league_archived`, which the service answers as 409 `league_archived`: one
-- place that no code path, present or future, can go around, and nothing is written.
-- The league's own row may still change `archived` itself (archive, unarchive).
ALTER TABLE leagues ADD COLUMN archived INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1));

CREATE TRIGGER archived_leagues_update BEFORE UPDATE ON leagues
    WHEN OLD.archived = 1 AND NEW.archived = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_leagues_delete BEFORE DELETE ON leagues
    WHEN OLD.archived = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_teams_insert BEFORE INSERT ON teams
    WHEN (SELECT archived FROM leagues WHERE id = NEW.league_id) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_teams_update BEFORE UPDATE ON teams
    WHEN (SELECT archived FROM leagues WHERE id = OLD.league_id) = 1 OR (SELECT archived FROM leagues WHERE id = NEW.league_id) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_teams_delete BEFORE DELETE ON teams
    WHEN (SELECT archived FROM leagues WHERE id = OLD.league_id) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_league_supervisors_insert BEFORE INSERT ON league_supervisors
    WHEN (SELECT archived FROM leagues WHERE id = NEW.league_id) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_league_supervisors_update BEFORE UPDATE ON league_supervisors
    WHEN (SELECT archived FROM leagues WHERE id = OLD.league_id) = 1 OR (SELECT archived FROM leagues WHERE id = NEW.league_id) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_league_supervisors_delete BEFORE DELETE ON league_supervisors
    WHEN (SELECT archived FROM leagues WHERE id = OLD.league_id) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_matches_insert BEFORE INSERT ON matches
    WHEN (SELECT archived FROM leagues WHERE id = NEW.league_id) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_matches_update BEFORE UPDATE ON matches
    WHEN (SELECT archived FROM leagues WHERE id = OLD.league_id) = 1 OR (SELECT archived FROM leagues WHERE id = NEW.league_id) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_matches_delete BEFORE DELETE ON matches
    WHEN (SELECT archived FROM leagues WHERE id = OLD.league_id) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_brackets_insert BEFORE INSERT ON brackets
    WHEN (SELECT archived FROM leagues WHERE id = NEW.league_id) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_brackets_update BEFORE UPDATE ON brackets
    WHEN (SELECT archived FROM leagues WHERE id = OLD.league_id) = 1 OR (SELECT archived FROM leagues WHERE id = NEW.league_id) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_brackets_delete BEFORE DELETE ON brackets
    WHEN (SELECT archived FROM leagues WHERE id = OLD.league_id) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_players_insert BEFORE INSERT ON players
    WHEN (SELECT archived FROM leagues WHERE id = NEW.league_id) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_players_update BEFORE UPDATE ON players
    WHEN (SELECT archived FROM leagues WHERE id = OLD.league_id) = 1 OR (SELECT archived FROM leagues WHERE id = NEW.league_id) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_players_delete BEFORE DELETE ON players
    WHEN (SELECT archived FROM leagues WHERE id = OLD.league_id) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_hands_insert BEFORE INSERT ON hands
    WHEN (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM matches WHERE id = NEW.match_id)) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_hands_update BEFORE UPDATE ON hands
    WHEN (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM matches WHERE id = OLD.match_id)) = 1 OR (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM matches WHERE id = NEW.match_id)) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_hands_delete BEFORE DELETE ON hands
    WHEN (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM matches WHERE id = OLD.match_id)) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_lineups_insert BEFORE INSERT ON lineups
    WHEN (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM matches WHERE id = NEW.match_id)) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_lineups_update BEFORE UPDATE ON lineups
    WHEN (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM matches WHERE id = OLD.match_id)) = 1 OR (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM matches WHERE id = NEW.match_id)) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_lineups_delete BEFORE DELETE ON lineups
    WHEN (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM matches WHERE id = OLD.match_id)) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_rating_notes_insert BEFORE INSERT ON rating_notes
    WHEN (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM matches WHERE id = NEW.match_id)) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_rating_notes_update BEFORE UPDATE ON rating_notes
    WHEN (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM matches WHERE id = OLD.match_id)) = 1 OR (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM matches WHERE id = NEW.match_id)) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_rating_notes_delete BEFORE DELETE ON rating_notes
    WHEN (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM matches WHERE id = OLD.match_id)) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_bracket_seeds_insert BEFORE INSERT ON bracket_seeds
    WHEN (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM brackets WHERE id = NEW.bracket_id)) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_bracket_seeds_update BEFORE UPDATE ON bracket_seeds
    WHEN (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM brackets WHERE id = OLD.bracket_id)) = 1 OR (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM brackets WHERE id = NEW.bracket_id)) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_bracket_seeds_delete BEFORE DELETE ON bracket_seeds
    WHEN (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM brackets WHERE id = OLD.bracket_id)) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_bracket_matches_insert BEFORE INSERT ON bracket_matches
    WHEN (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM brackets WHERE id = NEW.bracket_id)) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_bracket_matches_update BEFORE UPDATE ON bracket_matches
    WHEN (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM brackets WHERE id = OLD.bracket_id)) = 1 OR (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM brackets WHERE id = NEW.bracket_id)) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_bracket_matches_delete BEFORE DELETE ON bracket_matches
    WHEN (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM brackets WHERE id = OLD.bracket_id)) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_eligibility_overrides_insert BEFORE INSERT ON eligibility_overrides
    WHEN (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM teams WHERE id = NEW.team_id)) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_eligibility_overrides_update BEFORE UPDATE ON eligibility_overrides
    WHEN (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM teams WHERE id = OLD.team_id)) = 1 OR (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM teams WHERE id = NEW.team_id)) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_eligibility_overrides_delete BEFORE DELETE ON eligibility_overrides
    WHEN (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM teams WHERE id = OLD.team_id)) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_player_eligibility_overrides_insert BEFORE INSERT ON player_eligibility_overrides
    WHEN (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM players WHERE id = NEW.player_id)) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_player_eligibility_overrides_update BEFORE UPDATE ON player_eligibility_overrides
    WHEN (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM players WHERE id = OLD.player_id)) = 1 OR (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM players WHERE id = NEW.player_id)) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_player_eligibility_overrides_delete BEFORE DELETE ON player_eligibility_overrides
    WHEN (SELECT archived FROM leagues WHERE id = (SELECT league_id FROM players WHERE id = OLD.player_id)) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;


-- Divisions (0023) belong to the league too.
CREATE TRIGGER archived_divisions_insert BEFORE INSERT ON divisions
    WHEN (SELECT archived FROM leagues WHERE id = NEW.league_id) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_divisions_update BEFORE UPDATE ON divisions
    WHEN (SELECT archived FROM leagues WHERE id = OLD.league_id) = 1 OR (SELECT archived FROM leagues WHERE id = NEW.league_id) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;

CREATE TRIGGER archived_divisions_delete BEFORE DELETE ON divisions
    WHEN (SELECT archived FROM leagues WHERE id = OLD.league_id) = 1
BEGIN
    SELECT RAISE(ABORT, 'league_archived');
END;
