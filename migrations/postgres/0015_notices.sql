-- Notices by email: the outbox of messages and the unsubscribes (the SQLite migration 0027
-- says why and what).
CREATE TABLE notices (
    id              BIGSERIAL PRIMARY KEY,
    league_id       BIGINT NOT NULL REFERENCES leagues(id),
    event           TEXT COLLATE "C" NOT NULL,
    event_key       TEXT COLLATE "C" NOT NULL,
    address         TEXT COLLATE "C" NOT NULL,
    subject         TEXT NOT NULL,
    body_text       TEXT NOT NULL,
    body_html       TEXT NOT NULL,
    status          TEXT COLLATE "C" NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed', 'skipped')),
    attempts        BIGINT NOT NULL DEFAULT 0,
    last_error      TEXT,
    next_attempt_at TEXT COLLATE "C" NOT NULL,
    claimed_until   TEXT COLLATE "C",
    created_at      TEXT COLLATE "C" NOT NULL,
    sent_at         TEXT COLLATE "C",
    UNIQUE (event_key, address)
);
CREATE INDEX notices_due ON notices (next_attempt_at) WHERE status = 'pending';
CREATE INDEX notices_league ON notices (league_id, id);

CREATE TABLE notice_subscriptions (
    league_id       BIGINT NOT NULL REFERENCES leagues(id),
    address         TEXT COLLATE "C" NOT NULL,
    token           TEXT COLLATE "C" NOT NULL UNIQUE,
    unsubscribed_at TEXT COLLATE "C",
    PRIMARY KEY (league_id, address)
);
