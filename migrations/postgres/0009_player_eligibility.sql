-- A coordinator's decision that a player may play in the playoffs (the SQLite migration 0021
-- says why), and the change counter kept by it and by players.
CREATE TABLE player_eligibility_overrides (
    player_id BIGINT PRIMARY KEY REFERENCES players(id),
    reason    TEXT COLLATE "C" NOT NULL,
    set_by    BIGINT NOT NULL REFERENCES users(id),
    set_at    TEXT COLLATE "C" NOT NULL
);
CREATE TRIGGER data_version_player_eligibility_overrides
    AFTER INSERT OR UPDATE OR DELETE ON player_eligibility_overrides
    FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version();
CREATE TRIGGER data_version_players
    AFTER INSERT OR UPDATE OR DELETE ON players
    FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version();
