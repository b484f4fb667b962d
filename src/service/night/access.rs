//! Who may write to a match and what every write to one shares: the match if the user may
//! write to it, its league, a team named in a request, and how long an idempotency key is
//! kept. `matches`, `lineups`, `conduct` and `action_keys` import these; this module
//! imports none of them.
