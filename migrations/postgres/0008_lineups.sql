-- Who sat at the table (the SQLite migration 0020 says why).
CREATE TABLE lineups (
    match_id  BIGINT NOT NULL REFERENCES matches(id),
    team      TEXT COLLATE "C" NOT NULL CHECK (team IN ('a', 'b')),
    from_hand BIGINT NOT NULL CHECK (from_hand >= 1),
    seat1     BIGINT NOT NULL REFERENCES players(id),
    seat2     BIGINT NOT NULL REFERENCES players(id),
    set_by    BIGINT REFERENCES users(id),
    set_at    TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (match_id, team, from_hand),
    CHECK (seat1 <> seat2)
);
CREATE INDEX lineups_seat1 ON lineups (seat1);
CREATE INDEX lineups_seat2 ON lineups (seat2);
