-- Past seasons (docs/api.md §18.2): an archived league is read-only. The database itself
-- refuses every write to an archived league's rows (its row, teams, supervisors, players,
-- matches with their check-ins and ratings, hands, lineups, notes, overrides, bracket) with
-- SQLSTATE SP409 `league_archived`, which the service answers as 409 `league_archived`: one
-- place that no code path, present or future, can go around, and nothing is written.
-- The league's own row may still change `archived` itself (archive, unarchive).
ALTER TABLE leagues ADD COLUMN archived BOOLEAN NOT NULL DEFAULT FALSE;

CREATE FUNCTION refuse_archived_league() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.archived AND (TG_OP = 'DELETE' OR NEW.archived) THEN
        RAISE EXCEPTION 'league_archived' USING ERRCODE = 'SP409';
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER archived_leagues BEFORE UPDATE OR DELETE ON leagues
    FOR EACH ROW EXECUTE FUNCTION refuse_archived_league();

-- A row of a league-owned table: TG_ARGV[0] names its column that leads to the league,
-- TG_ARGV[1] the table that column points into ('leagues' when it is the league's id).
CREATE FUNCTION refuse_archived_write() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    refs BIGINT[] := '{}';
    ref BIGINT;
    league BIGINT;
BEGIN
    IF TG_OP <> 'INSERT' THEN
        refs := refs || (to_jsonb(OLD) ->> TG_ARGV[0])::BIGINT;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        refs := refs || (to_jsonb(NEW) ->> TG_ARGV[0])::BIGINT;
    END IF;
    FOREACH ref IN ARRAY refs LOOP
        IF TG_ARGV[1] = 'leagues' THEN
            league := ref;
        ELSE
            EXECUTE format('SELECT league_id FROM %I WHERE id = $1', TG_ARGV[1])
                INTO league USING ref;
        END IF;
        IF EXISTS (SELECT 1 FROM leagues WHERE id = league AND archived) THEN
            RAISE EXCEPTION 'league_archived' USING ERRCODE = 'SP409';
        END IF;
    END LOOP;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER archived_teams BEFORE INSERT OR UPDATE OR DELETE ON teams
    FOR EACH ROW EXECUTE FUNCTION refuse_archived_write('league_id', 'leagues');

CREATE TRIGGER archived_league_supervisors BEFORE INSERT OR UPDATE OR DELETE ON league_supervisors
    FOR EACH ROW EXECUTE FUNCTION refuse_archived_write('league_id', 'leagues');

CREATE TRIGGER archived_matches BEFORE INSERT OR UPDATE OR DELETE ON matches
    FOR EACH ROW EXECUTE FUNCTION refuse_archived_write('league_id', 'leagues');

CREATE TRIGGER archived_brackets BEFORE INSERT OR UPDATE OR DELETE ON brackets
    FOR EACH ROW EXECUTE FUNCTION refuse_archived_write('league_id', 'leagues');

CREATE TRIGGER archived_players BEFORE INSERT OR UPDATE OR DELETE ON players
    FOR EACH ROW EXECUTE FUNCTION refuse_archived_write('league_id', 'leagues');

CREATE TRIGGER archived_hands BEFORE INSERT OR UPDATE OR DELETE ON hands
    FOR EACH ROW EXECUTE FUNCTION refuse_archived_write('match_id', 'matches');

CREATE TRIGGER archived_lineups BEFORE INSERT OR UPDATE OR DELETE ON lineups
    FOR EACH ROW EXECUTE FUNCTION refuse_archived_write('match_id', 'matches');

CREATE TRIGGER archived_rating_notes BEFORE INSERT OR UPDATE OR DELETE ON rating_notes
    FOR EACH ROW EXECUTE FUNCTION refuse_archived_write('match_id', 'matches');

CREATE TRIGGER archived_bracket_seeds BEFORE INSERT OR UPDATE OR DELETE ON bracket_seeds
    FOR EACH ROW EXECUTE FUNCTION refuse_archived_write('bracket_id', 'brackets');

CREATE TRIGGER archived_bracket_matches BEFORE INSERT OR UPDATE OR DELETE ON bracket_matches
    FOR EACH ROW EXECUTE FUNCTION refuse_archived_write('bracket_id', 'brackets');

CREATE TRIGGER archived_eligibility_overrides BEFORE INSERT OR UPDATE OR DELETE ON eligibility_overrides
    FOR EACH ROW EXECUTE FUNCTION refuse_archived_write('team_id', 'teams');

CREATE TRIGGER archived_player_eligibility_overrides BEFORE INSERT OR UPDATE OR DELETE ON player_eligibility_overrides
    FOR EACH ROW EXECUTE FUNCTION refuse_archived_write('player_id', 'players');


-- Divisions (0011) belong to the league too.
CREATE TRIGGER archived_divisions BEFORE INSERT OR UPDATE OR DELETE ON divisions
    FOR EACH ROW EXECUTE FUNCTION refuse_archived_write('league_id', 'leagues');
