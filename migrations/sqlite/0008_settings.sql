-- A league's season settings besides its scoring rules: forfeit policy, sportsmanship scale,
-- playoff eligibility (docs/api.md §6.9), as JSON; '{}' is every default (nothing changes for
-- a league made before them).
ALTER TABLE leagues ADD COLUMN settings TEXT NOT NULL DEFAULT '{}';
