-- Audit entries that came in with an imported league document: history, never an act of a
-- local account. Such a row has no user_id; it keeps the username the document gave
-- (imported_user), the admin who imported it (imported_by, a plain number like league_id, so
-- a removed account leaves the entry readable) and when (imported_at). NULL on every entry
-- made here.
ALTER TABLE audit_log ADD COLUMN imported_by INTEGER;
ALTER TABLE audit_log ADD COLUMN imported_at TEXT;
ALTER TABLE audit_log ADD COLUMN imported_user TEXT;
