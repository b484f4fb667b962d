-- A hand entered with `Prefer: return=minimal` is answered with its totals only; its
-- idempotency key remembers that (the SQLite migration 0028 says why).
ALTER TABLE idempotency_keys ADD COLUMN minimal BOOLEAN NOT NULL DEFAULT FALSE;
