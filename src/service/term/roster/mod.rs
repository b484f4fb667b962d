//! A league's roster: its teams imported from a CSV (`team,player1,player2`, checked row by
//! row before anything is written), exported as one (one player a row, with the personal
//! data: admins only, audited; the import reads it back), and a team's edit or withdrawal
//! by the coordinator.
//!
//! `reading` reads a CSV's rows; `import` checks them against the league and adds the
//! teams; `export` writes the roster back out; `edits` changes or withdraws a team.

pub mod edits;
pub mod export;
pub mod import;
pub mod reading;
