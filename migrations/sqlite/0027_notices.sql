-- Notices by email (docs/api.md, "Notices by email"): the outbox of messages to send. A
-- notice is written in the transaction of the change that causes it (a match moved, a
-- forfeit, the bracket created, ...), one row per event and address, and a task sends it
-- after the commit, with retries; a restart resumes from these rows.
CREATE TABLE notices (
    id              INTEGER PRIMARY KEY,
    league_id       INTEGER NOT NULL REFERENCES leagues(id),
    -- What happened: `match_moved`, `match_postponed`, `match_cancelled`, `night_moved`,
    -- `forfeit`, `team_dropped`, `bracket_created`, `result_corrected`.
    event           TEXT NOT NULL,
    -- The event, the same for every address it mails (`match_moved:12:3`): with `address`
    -- unique, so the same event never mails an address twice.
    event_key       TEXT NOT NULL,
    address         TEXT NOT NULL,
    subject         TEXT NOT NULL,
    body_text       TEXT NOT NULL,
    body_html       TEXT NOT NULL,
    -- `skipped`: the address stopped the league's notices before this one went.
    status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed', 'skipped')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT,
    -- When a sender may next try it.
    next_attempt_at TEXT NOT NULL,
    -- A sender that took it holds it until then (two instances never send it at once).
    claimed_until   TEXT,
    created_at      TEXT NOT NULL,
    sent_at         TEXT,
    UNIQUE (event_key, address)
) STRICT;
CREATE INDEX notices_due ON notices (next_attempt_at) WHERE status = 'pending';
CREATE INDEX notices_league ON notices (league_id, id);

-- Addresses that stopped a league's notices (the one-click unsubscribe, RFC 8058); the token
-- in each message's link names the pair without showing the address.
CREATE TABLE notice_subscriptions (
    league_id    INTEGER NOT NULL REFERENCES leagues(id),
    address      TEXT NOT NULL,           -- lowercased
    token        TEXT NOT NULL UNIQUE,
    unsubscribed_at TEXT,
    PRIMARY KEY (league_id, address)
) STRICT;
