-- The queue of a tournament night (docs/api.md §21.1): when the match was called to its
-- table (`table_name`) and not yet started. Null: not called. A called match not started
-- within the league's `settings.queue.call_minutes` is flagged "no show?".
ALTER TABLE matches ADD COLUMN called_at TEXT COLLATE "C";
