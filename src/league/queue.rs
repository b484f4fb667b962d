//! The queue of a tournament night (docs/api.md §21.1): which match each of the room's
//! tables has, which matches wait for one, and which to call next. Pure: the service reads
//! a league's matches of the day in calling order, asks [`calls`] what to call, and writes
//! the calls in the same transaction as the result that freed the table.
//!
//! The two rules every state keeps: a table has at most one match called to it or played at
//! it, and a team is in at most one match called or played.

use std::collections::{HashMap, HashSet};

use crate::domain::table_name;
use crate::domain::{MatchId, TeamId, Timestamp};

/// A match of the day as the queue sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub id: MatchId,
    pub teams: [TeamId; 2],
    pub place: Place,
}

/// Where a match of the day is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// Not called, not started: it waits for a table.
    Waiting,
    /// Called to `table` at `since`, not started.
    Called { table: String, since: Timestamp },
    /// Started, at `table` (`None`: a table that is not the room's, or none).
    Playing { table: Option<String> },
}

impl Place {
    /// The table the match holds: called to it or played at it.
    pub fn table(&self) -> Option<&str> {
        match self {
            Place::Waiting => None,
            Place::Called { table, .. } => Some(table),
            Place::Playing { table } => table.as_deref(),
        }
    }
}

/// A table of the room and what is at it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    pub name: String,
    pub at: AtTable,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtTable {
    Free,
    Called { id: MatchId, since: Timestamp },
    Playing { id: MatchId },
}

/// The queue as it is: each table (in the room's order) and the waiting matches in calling
/// order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Queue {
    pub tables: Vec<Table>,
    pub waiting: Vec<MatchId>,
}

/// The queue of `tables` given the day's `entries` (in calling order). Were two matches
/// ever at one table (set by hand outside the queue), the one played shows, then the first.
pub fn queue(tables: &[String], entries: &[Entry]) -> Queue {
    // What holds each table, by its one spelling: the first match played there, else the
    // first called.
    let mut holder: HashMap<String, &Entry> = HashMap::new();
    for e in entries {
        let Some(table) = e.place.table() else {
            continue;
        };
        let slot = holder.entry(table_name::key(table)).or_insert(e);
        if !matches!(slot.place, Place::Playing { .. }) && matches!(e.place, Place::Playing { .. })
        {
            *slot = e;
        }
    }
    let at = |name: &str| match holder.get(&table_name::key(name)) {
        None => AtTable::Free,
        Some(Entry {
            id,
            place: Place::Called { since, .. },
            ..
        }) => AtTable::Called {
            id: *id,
            since: *since,
        },
        Some(e) => AtTable::Playing { id: e.id },
    };
    Queue {
        tables: tables
            .iter()
            .map(|name| Table {
                name: name.clone(),
                at: at(name),
            })
            .collect(),
        waiting: entries
            .iter()
            .filter(|e| e.place == Place::Waiting)
            .map(|e| e.id)
            .collect(),
    }
}

/// The calls to make now: each free table (in the room's order) gets the first waiting match
/// (in calling order) whose teams are at no table, `skip` aside (a match just put back
/// waits for the next table, not the one it left).
pub fn calls(
    tables: &[String],
    entries: &[Entry],
    skip: Option<MatchId>,
) -> Vec<(MatchId, String)> {
    let holding = entries.iter().filter(|e| e.place != Place::Waiting);
    let mut busy: HashSet<TeamId> = holding.clone().flat_map(|e| e.teams).collect();
    let taken: HashSet<String> = holding
        .filter_map(|e| e.place.table())
        .map(table_name::key)
        .collect();
    let mut called: HashSet<MatchId> = HashSet::new();
    let mut out = Vec::new();
    for table in tables {
        if taken.contains(&table_name::key(table)) {
            continue;
        }
        let next = entries.iter().find(|e| {
            e.place == Place::Waiting
                && Some(e.id) != skip
                && !called.contains(&e.id)
                && e.teams[0] != e.teams[1]
                && e.teams.iter().all(|t| !busy.contains(t))
        });
        let Some(next) = next else { break };
        busy.extend(next.teams);
        called.insert(next.id);
        out.push((next.id, table.clone()));
    }
    out
}

/// Why match `id` (teams `teams`) may not take `table` (`None`: no table of the room):
/// another match holds the table, or holds one of the teams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Taken {
    Table(MatchId),
    Team(MatchId),
}

/// Whether match `id` may be called to, or start at, `table` now: the queue's two rules for
/// a match placed by hand (a call, a start, a correction, a move).
pub fn taken(
    entries: &[Entry],
    id: MatchId,
    teams: [TeamId; 2],
    table: Option<&str>,
) -> Option<Taken> {
    let mut held = entries
        .iter()
        .filter(|e| e.id != id && e.place != Place::Waiting);
    if let Some(table) = table
        && let Some(other) = held
            .clone()
            .find(|e| e.place.table().is_some_and(|t| table_name::same(t, table)))
    {
        return Some(Taken::Table(other.id));
    }
    held.find(|e| e.teams.iter().any(|t| teams.contains(t)))
        .map(|e| Taken::Team(e.id))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use proptest::prelude::*;

    fn at(secs: i64) -> Timestamp {
        Timestamp(chrono::DateTime::from_timestamp(secs, 0).unwrap())
    }

    fn entry(id: i64, a: i64, b: i64, place: Place) -> Entry {
        Entry {
            id: MatchId(id),
            teams: [TeamId(a), TeamId(b)],
            place,
        }
    }

    fn names(n: usize) -> Vec<String> {
        (1..=n).map(|i| i.to_string()).collect()
    }

    /// The calls of `calls` made on `entries`.
    fn apply(entries: &mut [Entry], made: &[(MatchId, String)], now: Timestamp) {
        for (id, table) in made {
            let e = entries.iter_mut().find(|e| e.id == *id).unwrap();
            e.place = Place::Called {
                table: table.clone(),
                since: now,
            };
        }
    }

    #[test]
    fn free_tables_take_the_first_matches_whose_teams_are_free() {
        let entries = vec![
            entry(
                1,
                1,
                2,
                Place::Playing {
                    table: Some("Table 1".into()),
                },
            ),
            entry(2, 3, 4, Place::Waiting),
            entry(3, 1, 5, Place::Waiting),
            entry(4, 5, 6, Place::Waiting),
            entry(5, 7, 8, Place::Waiting),
        ];
        let made = calls(&names(3), &entries, None);
        // Table 1 is in use ("Table 1" is table "1"); match 3 waits for team 1.
        assert_eq!(
            made,
            vec![(MatchId(2), "2".to_string()), (MatchId(4), "3".to_string())]
        );
        let q = queue(&names(3), &entries);
        assert_eq!(q.tables[0].at, AtTable::Playing { id: MatchId(1) });
        assert_eq!(q.tables[1].at, AtTable::Free);
        assert_eq!(
            q.waiting,
            vec![MatchId(2), MatchId(3), MatchId(4), MatchId(5)]
        );
    }

    #[test]
    fn a_match_placed_by_hand_takes_only_a_free_table_and_free_teams() {
        let since = at(0);
        let entries = vec![
            entry(
                1,
                1,
                2,
                Place::Playing {
                    table: Some("Table 1".into()),
                },
            ),
            entry(
                2,
                3,
                4,
                Place::Called {
                    table: "2".into(),
                    since,
                },
            ),
            entry(3, 5, 6, Place::Waiting),
        ];
        let free_teams = [TeamId(7), TeamId(8)];
        assert_eq!(
            taken(&entries, MatchId(9), free_teams, Some("1")),
            Some(Taken::Table(MatchId(1)))
        );
        assert_eq!(
            taken(&entries, MatchId(9), free_teams, Some("table 2")),
            Some(Taken::Table(MatchId(2)))
        );
        assert_eq!(taken(&entries, MatchId(9), free_teams, Some("3")), None);
        assert_eq!(taken(&entries, MatchId(9), free_teams, None), None);
        // A team at another table; a waiting match holds nothing; the match itself neither.
        assert_eq!(
            taken(&entries, MatchId(9), [TeamId(4), TeamId(8)], Some("3")),
            Some(Taken::Team(MatchId(2)))
        );
        assert_eq!(
            taken(&entries, MatchId(9), [TeamId(5), TeamId(8)], Some("3")),
            None
        );
        assert_eq!(
            taken(&entries, MatchId(2), [TeamId(3), TeamId(4)], Some("2")),
            None
        );
    }

    #[test]
    fn a_match_put_back_waits_for_the_next_table() {
        let entries = vec![
            entry(1, 1, 2, Place::Waiting),
            entry(2, 3, 4, Place::Waiting),
        ];
        assert_eq!(
            calls(&names(1), &entries, Some(MatchId(1))),
            vec![(MatchId(2), "1".to_string())]
        );
    }

    /// A night's event, applied to a random entry.
    #[derive(Debug, Clone)]
    enum Event {
        Start(usize),
        End(usize),
        PutBack(usize),
        /// A supervisor starts a waiting match at a table the queue did not call it to
        /// (allowed, as the service's `check_start` allows it, when the table and both
        /// teams are free), the table written "Table n" where the room says "n".
        StartUncalled(usize, usize),
    }

    fn event() -> impl Strategy<Value = Event> {
        prop_oneof![
            (0..64usize).prop_map(Event::Start),
            (0..64usize).prop_map(Event::End),
            (0..64usize).prop_map(Event::PutBack),
            (0..64usize, 0..6usize).prop_map(|(i, t)| Event::StartUncalled(i, t)),
        ]
    }

    /// The teams of the matches called or played.
    fn busy(entries: &[Entry]) -> HashSet<TeamId> {
        entries
            .iter()
            .filter(|e| e.place != Place::Waiting)
            .flat_map(|e| e.teams)
            .collect()
    }

    /// Whether table `t` is held, however its name is written.
    fn held(entries: &[Entry], t: &str) -> bool {
        entries
            .iter()
            .any(|e| e.place.table().is_some_and(|x| table_name::same(x, t)))
    }

    /// Every table holds at most one match, every team is in at most one match held.
    fn check_rules(tables: &[String], entries: &[Entry]) -> Result<(), TestCaseError> {
        let held: Vec<&Entry> = entries
            .iter()
            .filter(|e| e.place != Place::Waiting)
            .collect();
        for t in tables {
            let n = held
                .iter()
                .filter(|e| e.place.table().is_some_and(|x| table_name::same(x, t)))
                .count();
            prop_assert!(n <= 1, "table {t} holds {n} matches");
        }
        let mut teams = HashSet::new();
        for e in &held {
            for t in e.teams {
                prop_assert!(teams.insert(t), "team {t:?} is in two matches");
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// Results, starts and put-backs in any order, the queue filling the tables after
        /// each: no table ever runs two matches, no team plays two at once, and no table is
        /// left free while a waiting match could be called to it.
        #[test]
        fn no_table_or_team_is_ever_double_booked(
            n_tables in 1..6usize,
            pairs in prop::collection::vec((0..9i64, 0..9i64), 1..24),
            events in prop::collection::vec(event(), 0..80),
        ) {
            let tables = names(n_tables);
            let mut entries: Vec<Entry> = pairs
                .iter()
                .enumerate()
                .filter(|(_, (a, b))| a != b)
                .map(|(i, (a, b))| entry(i as i64 + 1, *a, *b, Place::Waiting))
                .collect();
            let mut now = 0;
            let made = calls(&tables, &entries, None);
            apply(&mut entries, &made, at(now));
            for ev in events {
                now += 60;
                check_rules(&tables, &entries)?;
                let mut skip = None;
                match ev {
                    Event::Start(i) if i < entries.len() => {
                        if let Place::Called { table, .. } = &entries[i].place {
                            entries[i].place = Place::Playing { table: Some(table.clone()) };
                        }
                    }
                    Event::End(i) if i < entries.len() && entries[i].place != Place::Waiting => {
                        entries.remove(i);
                    }
                    Event::PutBack(i) if i < entries.len() => {
                        if matches!(entries[i].place, Place::Called { .. }) {
                            entries[i].place = Place::Waiting;
                            skip = Some(entries[i].id);
                        }
                    }
                    Event::StartUncalled(i, t) if i < entries.len() && t < tables.len() => {
                        let free = !held(&entries, &tables[t]);
                        let teams_free = entries[i].teams.iter().all(|x| !busy(&entries).contains(x));
                        if entries[i].place == Place::Waiting && free && teams_free {
                            let table = Some(format!("Table {}", tables[t]));
                            entries[i].place = Place::Playing { table };
                        }
                    }
                    _ => {}
                }
                let made = calls(&tables, &entries, skip);
                apply(&mut entries, &made, at(now));
                check_rules(&tables, &entries)?;
                // Nothing more could be called: at every free table, each waiting match but
                // the one put back has a team at a table.
                let teams = busy(&entries);
                for t in tables.iter().filter(|t| !held(&entries, t)) {
                    for e in entries.iter().filter(|e| e.place == Place::Waiting && Some(e.id) != skip) {
                        prop_assert!(
                            e.teams.iter().any(|x| teams.contains(x)),
                            "table {} is free and match {:?} could be called to it", t, e.id
                        );
                    }
                }
            }
            // The view agrees: a table shows what holds it, the waiting list is the rest.
            let q = queue(&tables, &entries);
            for t in &q.tables {
                prop_assert_eq!(!held(&entries, &t.name), t.at == AtTable::Free);
            }
            let waiting = entries.iter().filter(|e| e.place == Place::Waiting).count();
            prop_assert_eq!(q.waiting.len(), waiting);
        }
    }
}
