-- The hand an idempotency key was first sent with, so the same key with a different hand is
-- refused (422 idempotency_key_reused) instead of answered with the first hand. Keys stored
-- before this migration have none and keep answering as before.
ALTER TABLE idempotency_keys ADD COLUMN request TEXT;
