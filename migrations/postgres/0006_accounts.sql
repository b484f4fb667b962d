-- Accounts the coordinator manages (the SQLite migration 0018).
ALTER TABLE users ADD COLUMN email TEXT COLLATE "C";
ALTER TABLE users ADD COLUMN active BOOLEAN NOT NULL DEFAULT TRUE;
ALTER TABLE users ADD COLUMN must_change_password BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE users ADD COLUMN last_login_at TEXT COLLATE "C";
CREATE UNIQUE INDEX users_email ON users (lower(email));
