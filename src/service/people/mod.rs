//! The people: accounts and how they sign in, and the players of the teams.
//!
//! `accounts` (passwords, sessions, API tokens) and `users` (the accounts the coordinator
//! manages); `throttle` and `device_cookie` slow password guessing; `oidc` is campus
//! sign-in; `players` are a team's players.

pub mod accounts;
pub mod captains;
pub mod device_cookie;
pub mod oidc;
pub mod players;
pub mod throttle;
pub mod users;
