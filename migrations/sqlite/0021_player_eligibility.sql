-- A coordinator's decision that a player may play in the playoffs although they sat in
-- fewer regular-season matches than settings.eligibility.min_matches_played asks
-- (docs/api.md, "Player eligibility and statistics"). A row is the decision, with its reason;
-- removing the decision deletes the row. Only "eligible" is ever decided: a player the rules
-- let in is not kept out by hand.
CREATE TABLE player_eligibility_overrides (
    player_id INTEGER PRIMARY KEY REFERENCES players(id),
    reason    TEXT NOT NULL,
    set_by    INTEGER NOT NULL REFERENCES users(id),
    set_at    TEXT NOT NULL
) STRICT;

-- Public pages show players' eligibility, names and statistics: a change to either table is a
-- change to what they show (migration 0005's counter).
CREATE TRIGGER data_version_player_overrides_insert AFTER INSERT ON player_eligibility_overrides
BEGIN UPDATE data_version SET n = n + 1; END;
CREATE TRIGGER data_version_player_overrides_update AFTER UPDATE ON player_eligibility_overrides
BEGIN UPDATE data_version SET n = n + 1; END;
CREATE TRIGGER data_version_player_overrides_delete AFTER DELETE ON player_eligibility_overrides
BEGIN UPDATE data_version SET n = n + 1; END;
CREATE TRIGGER data_version_players_insert AFTER INSERT ON players
BEGIN UPDATE data_version SET n = n + 1; END;
CREATE TRIGGER data_version_players_update AFTER UPDATE ON players
BEGIN UPDATE data_version SET n = n + 1; END;
CREATE TRIGGER data_version_players_delete AFTER DELETE ON players
BEGIN UPDATE data_version SET n = n + 1; END;
