-- `data_version` (0001) moves once a transaction, not once a statement: readers see a
-- transaction's changes all at once, so one step tells them. A group commit writes about 30
-- hands in one transaction, each with a statement on `hands` and one on `matches`; each step
-- updated the same row again (a new row version and a WAL record, on the writer's time).
--
-- The mark is a setting local to the transaction. A savepoint rolled back undoes its step
-- and its mark together (settings follow savepoints), so the next write steps again.
CREATE OR REPLACE FUNCTION bump_data_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('spades.data_version_moved', true) IS DISTINCT FROM 'on' THEN
        UPDATE data_version SET n = n + 1 WHERE id = 1;
        PERFORM set_config('spades.data_version_moved', 'on', true);
    END IF;
    RETURN NULL;
END $$;
