-- Accounts the coordinator manages (docs/api.md, "Accounts"): an optional email (unique
-- whatever its case), whether the account may log in, whether its password is a one-time
-- password that must be changed first, and its last log-in. Existing users stay active and
-- keep their passwords.
ALTER TABLE users ADD COLUMN email TEXT COLLATE NOCASE;
ALTER TABLE users ADD COLUMN active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1));
ALTER TABLE users ADD COLUMN must_change_password INTEGER NOT NULL DEFAULT 0
    CHECK (must_change_password IN (0, 1));
ALTER TABLE users ADD COLUMN last_login_at TEXT;
CREATE UNIQUE INDEX users_email ON users (email);
