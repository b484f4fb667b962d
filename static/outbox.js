// The console's outbox: to be written.
