-- Audit entries that came in with an imported league document (SQLite's 0030): no user_id,
-- the username the document gave, the importing admin and when.
ALTER TABLE audit_log ADD COLUMN imported_by BIGINT;
ALTER TABLE audit_log ADD COLUMN imported_at TEXT;
ALTER TABLE audit_log ADD COLUMN imported_user TEXT;
