-- Each bracket's results as its state counts them, one character a bracket match in match
-- order ('0' or '1': the winner's slot; '-': none), written in the transaction of every
-- change to the bracket. With it a new result moves only the matches on its path (its
-- winner's and its loser's next matches) instead of reading the whole bracket to rebuild its
-- state. NULL (a bracket made before this migration) until its next change, which reads the
-- whole bracket as before; `check` compares it with the whole replay.
ALTER TABLE brackets ADD COLUMN results TEXT;
