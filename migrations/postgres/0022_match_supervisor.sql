-- The supervisor a match is given (one of its league's supervisors): `/supervise` shows
-- them their own matches first. NULL: none given; any of the league's supervisors may still
-- run it. Unassigning a supervisor from the league clears theirs (in the same transaction).
ALTER TABLE matches ADD COLUMN supervisor_id BIGINT REFERENCES users(id);

-- A hand's first answer, sent again for its idempotency key, names the supervisor it named.
ALTER TABLE idempotency_keys ADD COLUMN supervisor_name TEXT;
