-- A hand entered with `Prefer: return=minimal` (docs/api.md §7.3) is answered with its
-- totals only; its idempotency key remembers that, so a resend is answered in the same form.
ALTER TABLE idempotency_keys ADD COLUMN minimal INTEGER NOT NULL DEFAULT 0;
