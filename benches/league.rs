// A benchmark, like a test, may stop at the first impossible state.
#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Benchmarks of the pure tournament logic (`spades_im::league`), no HTTP or database:
//!
//! - `league/standings/N`: `standings::standings` for N = 16, 64, 256 and 1,024 teams with the
//!   default tiebreak order. 16 and 64 teams play a full round robin (every pair once); 256 and
//!   1,024 teams play a season of 20 rounds of `schedule::round_robin` (20 matches a team,
//!   N × 10 results). In results/s.
//! - `league/seeding/N`: `bracket::seed_teams` from the standings table of N teams, then both
//!   bracket structures for the seeded field: `single_elimination(.., true)` and
//!   `double_elimination(.., GrandFinal::Double)`. Brackets hold at most `bracket::MAX_TEAMS`
//!   (256) teams, so 1,024 teams seed the top 256. `league/seeding_parts/*` splits the
//!   256-team case into its three calls.
//! - `league/double_256/create`: `double_elimination(256, GrandFinal::Double)` and
//!   `BracketState::new`; `league/double_256/play_out`: the same, then every ready match
//!   reported (`ready_matches`, `report`) with a SplitMix64 coin for the winner until
//!   `is_complete()`, then the champion (the module has no placings). In matches/s.
//!
//! - `league/race/40_teams_3_nights`: `race::race` for every team of a 40-team league with 10
//!   of its 13 round-robin nights played (results by team strength) and 3 nights (60
//!   matches) left, 8 places, no draws: the standings page's "are we in?" for all 40.
//! - `league/race/40_teams_8_left_bounded`: the bound of a public standings read at its
//!   edge: the same league with 8 nights (160 matches) left, the most the page races, under
//!   `race_within`'s 2,000 max-flows; first, 20 seeds each timed once, and the slowest kept.
//!
//! Results and coins come from a small deterministic PRNG, so every run does the same work;
//! the generators are not timed. Run with `cargo bench --bench league`.

use std::collections::HashMap;
use std::hint::black_box;
use std::time::Duration;

use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use spades_im::league::bracket::{
    BracketState, GrandFinal, MAX_TEAMS, double_elimination, seed_teams, single_elimination,
};
use spades_im::league::queue::{Entry, Place, calls, queue};
use spades_im::league::race::{RaceTeam, race, race_within};
use spades_im::league::schedule::round_robin;
use spades_im::league::standings::{
    Outcome, Result as MatchResult, Side, Standing, TeamEntry, Tiebreak, standings,
};
use spades_im::league::swiss::{Met, SwissTeam, pair_round};

/// League sizes for standings and seeding.
const SIZES: [usize; 4] = [16, 64, 256, 1024];

/// Rounds of a season when a full round robin is too long (20 matches a team).
const SEASON_ROUNDS: usize = 20;

/// Teams in the played-out double elimination.
const PLAYOFF_TEAMS: usize = 256;

/// Play-outs cycled through by `double_256/play_out` (one per iteration, seeds 1..=this), so
/// the grand-final reset is played in some iterations and not in others.
const PLAYOUT_SEEDS: u64 = 16;

/// SplitMix64: small, fast and good enough for results and coin flips.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// True with probability `per_mille` / 1000.
    fn chance(&mut self, per_mille: u64) -> bool {
        self.below(1000) < per_mille
    }
}

fn teams(n: usize) -> Vec<TeamEntry> {
    (0..n)
        .map(|i| TeamEntry {
            id: spades_im::domain::TeamId(1000 + i as i64),
            name: format!("Team {i:04}"),
        })
        .collect()
}

/// The season of `n` teams: a full round robin up to 64 teams, else its first
/// `SEASON_ROUNDS` rounds. Each team has a strength; the stronger team wins more often
/// (55–85%), the winner scores 500–569 and the loser 0–479 (spades scores, bags included);
/// 0.5% of matches are drawn (time called level), 1% forfeited by one side, 0.2% by both.
fn season(n: usize, seed: u64) -> (Vec<TeamEntry>, Vec<MatchResult>) {
    let mut rng = Rng(seed);
    let teams = teams(n);
    let strength: Vec<u64> = (0..n).map(|_| rng.below(100)).collect();
    let max_round = if n <= 64 { usize::MAX } else { SEASON_ROUNDS };
    let results = round_robin(n)
        .into_iter()
        .filter(|p| p.round <= max_round)
        .map(|p| {
            let (a, b) = (teams[p.a].id, teams[p.b].id);
            let played = |winner: Option<Side>, rng: &mut Rng| {
                let high = 500 + rng.below(70) as i64;
                let low = rng.below(48) as i64 * 10 + rng.below(10) as i64;
                let (score_a, score_b) = match winner {
                    Some(Side::A) => (high, low),
                    Some(Side::B) => (low, high),
                    None => (high, high),
                };
                MatchResult {
                    team_a: a,
                    team_b: b,
                    score_a,
                    score_b,
                    outcome: Outcome::Played { winner },
                    ratings: [Some(4), Some(5)],
                }
            };
            let forfeit = |outcome| MatchResult {
                team_a: a,
                team_b: b,
                score_a: 0,
                score_b: 0,
                outcome,
                ratings: [None, None],
            };
            if rng.chance(2) {
                forfeit(Outcome::DoubleForfeit)
            } else if rng.chance(10) {
                let side = if rng.chance(500) { Side::A } else { Side::B };
                forfeit(Outcome::Forfeit(side))
            } else if rng.chance(5) {
                played(None, &mut rng)
            } else {
                // Chance of a in per mille: 500 ± 3.5 per point of strength gap.
                let gap = strength[p.a] as i64 - strength[p.b] as i64;
                let a_wins = rng.chance((500 + gap * 7 / 2) as u64);
                played(Some(if a_wins { Side::A } else { Side::B }), &mut rng)
            }
        })
        .collect();
    (teams, results)
}

/// Checks the table (outside the timed loop) and prints how much tiebreaking it needed.
fn check_standings(n: usize, teams: &[TeamEntry], results: &[MatchResult], rows: &[Standing]) {
    assert_eq!(rows.len(), n, "one row a team");
    assert!(
        rows.iter().enumerate().all(|(i, r)| r.rank == i + 1),
        "ranks 1..=N in order"
    );
    let played: u32 = rows.iter().map(|r| r.played).sum();
    assert_eq!(
        played as usize,
        2 * results.len(),
        "every result counted twice"
    );
    assert!(
        rows.windows(2).all(|w| w[0].win_pct >= w[1].win_pct),
        "sorted by win %"
    );
    let mut groups: HashMap<u64, usize> = HashMap::new();
    for r in rows {
        *groups.entry(r.win_pct.to_bits()).or_default() += 1;
    }
    let tied: Vec<usize> = groups.values().copied().filter(|&g| g > 1).collect();
    // What the tiebreak order changed: rows placed differently from the name-only order.
    let by_name = standings(teams, results, &[]);
    let moved = rows
        .iter()
        .zip(&by_name)
        .filter(|(x, y)| x.team_id != y.team_id)
        .count();
    assert!(
        !tied.is_empty() && moved > 0,
        "{n} teams: the tiebreaks must have work to do"
    );
    eprintln!(
        "standings/{n}: {} results ({} a team), {} win-% groups tied ({} teams, largest {}); \
         the tiebreak order moves {moved} of {n} rows from the name order",
        results.len(),
        2 * results.len() / n,
        tied.len(),
        tied.iter().sum::<usize>(),
        tied.iter().max().copied().unwrap_or(0),
    );
}

fn bench_standings(c: &mut Criterion) {
    let mut group = c.benchmark_group("league/standings");
    group.sampling_mode(SamplingMode::Flat);
    for n in SIZES {
        let (teams, results) = season(n, 2026 + n as u64);
        let rows = standings(&teams, &results, &Tiebreak::DEFAULT_ORDER);
        check_standings(n, &teams, &results, &rows);
        group.throughput(Throughput::Elements(results.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                standings(
                    black_box(&teams),
                    black_box(&results),
                    &Tiebreak::DEFAULT_ORDER,
                )
            })
        });
    }
    group.finish();
}

fn bench_seeding(c: &mut Criterion) {
    let tables: Vec<(usize, Vec<Standing>)> = SIZES
        .iter()
        .map(|&n| {
            let (teams, results) = season(n, 2026 + n as u64);
            (n, standings(&teams, &results, &Tiebreak::DEFAULT_ORDER))
        })
        .collect();
    let mut group = c.benchmark_group("league/seeding");
    for (n, rows) in &tables {
        let n = *n;
        let field = n.min(MAX_TEAMS);
        let seeded = seed_teams(rows, Some(field));
        assert_eq!(seeded.len(), field);
        assert_eq!(seeded[0], rows[0].team_id.0, "seed 1 tops the standings");
        let single = single_elimination(field, true).expect("a valid size");
        let double = double_elimination(field, GrandFinal::Double).expect("a valid size");
        // N − 1 games plus third place; 2N − 2 plus the reset.
        assert_eq!(single.real_matches(), field);
        assert_eq!(double.real_matches(), 2 * field - 1);
        eprintln!(
            "seeding/{n}: {field} seeded; single elimination {} matches, double {} matches",
            single.matches.len(),
            double.matches.len()
        );
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                let seeded = seed_teams(black_box(rows), Some(field));
                let single = single_elimination(black_box(seeded.len()), true).expect("valid");
                let double =
                    double_elimination(black_box(seeded.len()), GrandFinal::Double).expect("valid");
                (seeded, single, double)
            })
        });
    }
    group.finish();

    let rows = &tables[2].1;
    assert_eq!(rows.len(), 256);
    let mut group = c.benchmark_group("league/seeding_parts");
    group.bench_function("seed_teams_256", |b| {
        b.iter(|| seed_teams(black_box(rows), Some(256)))
    });
    group.bench_function("single_elimination_256", |b| {
        b.iter(|| single_elimination(black_box(256), true).expect("valid"))
    });
    group.bench_function("double_elimination_256", |b| {
        b.iter(|| double_elimination(black_box(256), GrandFinal::Double).expect("valid"))
    });
    group.finish();
}

/// Builds the 256-team double elimination and plays it out with coin flips from `seed`;
/// returns the champion's seed and the matches played.
fn play_out(seed: u64) -> (usize, usize) {
    let bracket = double_elimination(PLAYOFF_TEAMS, GrandFinal::Double).expect("a valid size");
    let mut state = BracketState::new(&bracket);
    let mut rng = Rng(seed);
    let mut played = 0;
    while !state.is_complete() {
        // Every match that is ready now: they are independent, so all are reported before
        // asking again.
        let ready = state.ready_matches();
        assert!(!ready.is_empty(), "an incomplete bracket has a ready match");
        for m in ready {
            state
                .report(m, (rng.next() & 1) as usize)
                .expect("a ready match");
            played += 1;
        }
    }
    (
        state.champion().expect("a complete bracket has a champion"),
        played,
    )
}

fn bench_playout(c: &mut Criterion) {
    let n = PLAYOFF_TEAMS;
    let runs: Vec<(usize, usize)> = (1..=PLAYOUT_SEEDS).map(play_out).collect();
    let resets = runs.iter().filter(|r| r.1 == 2 * n - 1).count();
    assert!(
        runs.iter().all(|r| r.1 == 2 * n - 2 || r.1 == 2 * n - 1),
        "2N − 2 matches, or 2N − 1 with the reset"
    );
    assert!(
        0 < resets && resets < runs.len(),
        "the reset is played in some play-outs only"
    );
    let total: usize = runs.iter().map(|r| r.1).sum();
    let mean = total as f64 / runs.len() as f64;
    let bracket = double_elimination(n, GrandFinal::Double).expect("a valid size");
    eprintln!(
        "double_256: {} matches in the structure; {} play-outs cycled (seeds 1..={PLAYOUT_SEEDS}): \
         reset played in {resets}, {mean:.2} matches a play-out; champions {:?}",
        bracket.matches.len(),
        runs.len(),
        runs.iter().map(|r| r.0).collect::<Vec<_>>()
    );

    let mut group = c.benchmark_group("league/double_256");
    group.bench_function("create", |b| {
        b.iter(|| {
            let bracket = double_elimination(black_box(n), GrandFinal::Double).expect("valid");
            BracketState::new(&bracket)
        })
    });
    group.throughput(Throughput::Elements(mean.round() as u64));
    group.sampling_mode(SamplingMode::Flat);
    let mut seed = 0;
    group.bench_function("play_out", |b| {
        b.iter(|| {
            seed = seed % PLAYOUT_SEEDS + 1;
            play_out(black_box(seed))
        })
    });
    group.finish();
}

/// A 40-team league after 10 of 13 nights (round robin rounds 1–13 of 39), 3 nights left:
/// each team's record (half-points, played) and the 60 matches to play.
fn race_field(seed: u64) -> (Vec<RaceTeam>, Vec<(usize, usize)>) {
    race_field_left(seed, 3)
}

/// As [`race_field`], with the last `left` of the 13 nights still to play.
fn race_field_left(seed: u64, left_nights: usize) -> (Vec<RaceTeam>, Vec<(usize, usize)>) {
    let n = 40;
    let mut rng = Rng(seed);
    let strength: Vec<u64> = (0..n).map(|_| rng.below(100)).collect();
    let mut teams = vec![
        RaceTeam {
            half_points: 0,
            played: 0
        };
        n
    ];
    let mut left = Vec::new();
    for p in round_robin(n).into_iter().filter(|p| p.round <= 13) {
        if p.round > 13 - left_nights {
            left.push((p.a, p.b));
            continue;
        }
        let a_wins = rng.below(strength[p.a] + strength[p.b] + 2) <= strength[p.a];
        let winner = if a_wins { p.a } else { p.b };
        teams[p.a].played += 1;
        teams[p.b].played += 1;
        teams[winner].half_points += 2;
    }
    (teams, left)
}

fn bench_race(c: &mut Criterion) {
    let (teams, left) = race_field(7);
    let answer = race(&teams, &left, 8, false);
    let count = |s: &str| answer.iter().filter(|r| r.status.as_str() == s).count();
    eprintln!(
        "race: 40 teams, {} matches left, 8 places: {} clinched, {} eliminated, {} alive",
        left.len(),
        count("clinched"),
        count("eliminated"),
        count("alive")
    );
    let mut group = c.benchmark_group("league/race");
    group.bench_function("40_teams_3_nights", |b| {
        b.iter(|| race(black_box(&teams), black_box(&left), 8, false))
    });
    // The bound's edge: 8 nights left, 2,000 flows (service::views::standings).
    let mut slowest = (0, Duration::ZERO, false);
    for seed in 1..=20 {
        let (teams, left) = race_field_left(seed, 8);
        let started = std::time::Instant::now();
        let settled = race_within(&teams, &left, 8, false, 2_000).is_some();
        let took = started.elapsed();
        if took > slowest.1 {
            slowest = (seed, took, settled);
        }
    }
    eprintln!(
        "race within 2,000 flows, 40 teams, 160 matches left, 20 seeds: slowest seed {} took {:?} ({})",
        slowest.0,
        slowest.1,
        if slowest.2 {
            "settled"
        } else {
            "given up: no race shown"
        }
    );
    let (teams, left) = race_field_left(slowest.0, 8);
    group.bench_function("40_teams_8_left_bounded", |b| {
        b.iter(|| race_within(black_box(&teams), black_box(&left), 8, false, 2_000))
    });
    group.finish();
}

/// A Swiss field of `n` teams after `rounds` rounds paired by the service's own pairing,
/// each match won by a random side: the teams ranked by score, and the pairs met.
fn swiss_field(n: usize, rounds: usize, seed: u64) -> (Vec<SwissTeam>, Met) {
    let mut rng = Rng(seed);
    // Team t's score and bye, and the pairs met, by the team's number.
    let mut score = vec![0u32; n];
    let mut had_bye = vec![false; n];
    let mut met_pairs: Vec<(usize, usize)> = Vec::new();
    for _ in 0..rounds {
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&x, &y| score[y].cmp(&score[x]).then(x.cmp(&y)));
        let (teams, met) = ranked(&order, &score, &had_bye, &met_pairs);
        let round = pair_round(&teams, &met).expect("a round");
        for (a, b) in round.pairs {
            let (a, b) = (order[a], order[b]);
            met_pairs.push((a, b));
            score[if rng.chance(500) { a } else { b }] += 2;
        }
        if let Some(bye) = round.bye {
            had_bye[order[bye]] = true;
            score[order[bye]] += 2;
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| score[y].cmp(&score[x]).then(x.cmp(&y)));
    ranked(&order, &score, &had_bye, &met_pairs)
}

/// The field in the ranked `order` (team numbers), as the pairing takes it.
fn ranked(
    order: &[usize],
    score: &[u32],
    had_bye: &[bool],
    met_pairs: &[(usize, usize)],
) -> (Vec<SwissTeam>, Met) {
    let mut position = vec![0; order.len()];
    for (i, &t) in order.iter().enumerate() {
        position[t] = i;
    }
    let teams = order
        .iter()
        .map(|&t| SwissTeam {
            score: score[t],
            had_bye: had_bye[t],
        })
        .collect();
    let mut met = Met::new(order.len());
    for &(a, b) in met_pairs {
        met.add(position[a], position[b]);
    }
    (teams, met)
}

fn bench_swiss(c: &mut Criterion) {
    let mut group = c.benchmark_group("league/swiss");
    // The field (256 teams) and an odd one (255: the bye is chosen too), each after
    // four rounds, and a long event's eighth round.
    for (n, rounds) in [(256, 4), (255, 4), (256, 8), (24, 4)] {
        let (teams, met) = swiss_field(n, rounds, 11);
        group.bench_function(format!("{n}_teams_round_{}", rounds + 1), |b| {
            b.iter(|| pair_round(black_box(&teams), black_box(&met)))
        });
    }
    group.finish();
}

/// A day of a large event: `tables` tables, each holding a match (half called, half in
/// play) but for the last `free`, and `waiting` matches of a round robin among 200 teams
/// waiting, in calling order; many share a team with a match at a table.
fn queue_day(tables: usize, free: usize, waiting: usize) -> (Vec<String>, Vec<Entry>) {
    let names: Vec<String> = (1..=tables).map(|t| t.to_string()).collect();
    let pairs = round_robin(200);
    let mut entries = Vec::new();
    for (i, p) in pairs.iter().take(tables - free + waiting).enumerate() {
        let place = match i {
            i if i >= tables - free => Place::Waiting,
            i if i % 2 == 0 => Place::Playing {
                table: Some(names[i].clone()),
            },
            i => Place::Called {
                table: names[i].clone(),
                since: spades_im::domain::Timestamp(chrono::DateTime::UNIX_EPOCH),
            },
        };
        entries.push(Entry {
            id: spades_im::domain::MatchId(i as i64 + 1),
            teams: [p.a, p.b].map(|t| spades_im::domain::TeamId(t as i64)),
            place,
        });
    }
    (names, entries)
}

fn bench_queue(c: &mut Criterion) {
    let mut group = c.benchmark_group("league/queue");
    // What a result's transaction adds: the calls for the tables it frees. The room's most
    // tables (100), a few free, a day of 2,000 matches waiting.
    for (tables, free, waiting) in [(100, 1, 2_000), (100, 10, 2_000), (6, 1, 12)] {
        let (names, entries) = queue_day(tables, free, waiting);
        group.bench_function(
            format!("calls_{tables}_tables_{free}_free_{waiting}_waiting"),
            |b| b.iter(|| calls(black_box(&names), black_box(&entries), None)),
        );
    }
    let (names, entries) = queue_day(100, 10, 2_000);
    group.bench_function("view_100_tables_2000_waiting", |b| {
        b.iter(|| queue(black_box(&names), black_box(&entries)))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(20);
    targets = bench_standings, bench_seeding, bench_playout, bench_race, bench_swiss, bench_queue
}
criterion_main!(benches);
