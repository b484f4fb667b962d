-- Why a team was withdrawn by the forfeit policy ("dropped after 2 forfeits"; docs/api.md
-- §6.9); NULL for a team withdrawn by hand or not withdrawn.
ALTER TABLE teams ADD COLUMN dropped_reason TEXT;
