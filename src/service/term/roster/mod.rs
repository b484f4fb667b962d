//! A league's roster: its teams imported from a CSV (checked row by row, then written all
//! at once or not at all: new teams and divisions, the league's teams updated), exported as
//! one (one player a row, with the personal data: admins only, audited; the import reads
//! it back), and a team's edit or withdrawal by the coordinator.
//!
//! `reading` reads a CSV's rows; `plan` checks them against the league and decides what
//! each does; `import` writes the plan; `export` writes the roster back out; `edits`
//! changes or withdraws a team.

pub mod edits;
pub mod export;
pub mod import;
pub mod plan;
pub mod reading;
