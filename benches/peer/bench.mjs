#!/usr/bin/env node
// Peer benchmark for spades-im: brackets-manager (npm) running a full
// double-elimination stage on two storages (in-memory, JSON file).
//
// Per run: create a stage of N participants (double elimination, double grand
// final, natural seeding), report every match until none is left to play, then
// compute the final standings. Each phase is timed with process.hrtime.bigint().
//
// Usage: node bench.mjs [--runs 5] [--warmup 1] [--teams 256] [--seed 1] [--storage memory,json]
//
// Output: a human-readable table, then one JSON line per storage (each line
// starts with `{"peer":"brackets-manager"`), so that a shell or Rust harness
// can grep and parse it. Exit status 1 if any run fails validation.

import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, statSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

import { BracketsManager } from 'brackets-manager';
import { InMemoryDatabase } from 'brackets-memory-db';
import { JsonDatabase } from 'brackets-json-db';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));

// brackets-model's Status enum (brackets-model is a transitive dependency;
// the values are part of its published API: Locked=0 … Archived=5).
const STATUS = { Locked: 0, Waiting: 1, Ready: 2, Running: 3, Completed: 4, Archived: 5 };

// ---------------------------------------------------------------- arguments
function parseArgs(argv) {
  const opts = { runs: 5, warmup: 1, teams: 256, seed: 1, storages: ['memory', 'json'] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      const v = argv[++i];
      if (v === undefined) die(`missing value for ${a}`);
      return v;
    };
    const int = (v, min) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < min) die(`${a} expects an integer >= ${min}, got ${v}`);
      return n;
    };
    if (a === '--runs') opts.runs = int(next(), 1);
    else if (a === '--warmup') opts.warmup = int(next(), 0);
    else if (a === '--teams') opts.teams = int(next(), 4);
    else if (a === '--seed') opts.seed = int(next(), 0);
    else if (a === '--storage') opts.storages = next().split(',');
    else if (a === '-h' || a === '--help') {
      console.log('node bench.mjs [--runs N=5] [--warmup N=1] [--teams N=256] [--seed S=1] [--storage memory,json]');
      process.exit(0);
    } else die(`unknown argument ${a}`);
  }
  // brackets-manager rejects other counts unless settings.size pads with BYEs,
  // and with BYEs + natural ordering 1.11.1 leaves TBD slots that never resolve
  // in the losers' bracket, so only powers of two are benchmarked.
  if ((opts.teams & (opts.teams - 1)) !== 0) die(`--teams must be a power of two (got ${opts.teams})`);
  for (const s of opts.storages) if (!['memory', 'json'].includes(s)) die(`unknown storage ${s}`);
  return opts;
}

function die(msg) {
  console.error(`bench.mjs: ${msg}`);
  process.exit(2);
}

// ------------------------------------------------------- deterministic PRNG
// mulberry32: tiny, fast, and good enough to pick match winners reproducibly.
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// --------------------------------------------------------------- one run
const ms = (a, b) => Number(b - a) / 1e6;

/**
 * Plays one full tournament on `storage`.
 * gf1: 'random' (PRNG decides, like any match), 'wb' (winners'-bracket side
 * wins grand final 1, no reset) or 'lb' (losers'-bracket side wins, reset).
 */
async function runOnce(storage, teams, seed, gf1 = 'random') {
  const manager = new BracketsManager(storage);
  const rng = mulberry32(seed);
  const seeding = Array.from({ length: teams }, (_, i) => `Team ${i + 1}`);

  // ---- create
  const t0 = process.hrtime.bigint();
  const stage = await manager.create.stage({
    tournamentId: 0,
    name: 'Bench double elimination',
    type: 'double_elimination',
    seeding,
    settings: { grandFinal: 'double', seedOrdering: ['natural'] },
  });
  const t1 = process.hrtime.bigint();

  // Grand-final matches (group 3 of a double-elimination stage; round 1 = GF1,
  // round 2 = the reset match). Looked up outside the timed phases.
  const tc0 = process.hrtime.bigint();
  const groups = await manager.storage.select('group', { stage_id: stage.id });
  const fg = groups.find((g) => g.number === 3);
  const wbGroup = groups.find((g) => g.number === 1);
  const gfMatches = (await manager.storage.select('match', { group_id: fg.id })).sort((a, b) => a.id - b.id);
  if (gfMatches.length !== 2) throw new Error(`expected 2 grand-final matches, got ${gfMatches.length}`);
  const [gf1Id, gf2Id] = gfMatches.map((m) => m.id);
  const tc1 = process.hrtime.bigint();
  const lookupNs = tc1 - tc0;

  // ---- play
  const t2 = process.hrtime.bigint();
  let reported = 0;
  let resetPlayed = false;
  let gf1WonByWbSide = null;
  const losses = new Map(); // participant id -> number of losses
  for (;;) {
    const ready = await manager.storage.select('match', { stage_id: stage.id, status: STATUS.Ready });
    // The library readies GF2 as soon as GF1 is completed, whoever won GF1.
    // GF2 is only played when the losers'-bracket side (opponent2) took GF1.
    const toPlay = (ready || []).filter((m) => !(m.id === gf2Id && gf1WonByWbSide === true));
    if (toPlay.length === 0) break;
    toPlay.sort((a, b) => a.id - b.id);
    for (const m of toPlay) {
      let w;
      if (m.id === gf1Id && gf1 !== 'random') w = gf1 === 'wb' ? 1 : 2;
      else w = rng() < 0.5 ? 1 : 2;
      const loserScore = Math.floor(rng() * 500);
      await manager.update.match({
        id: m.id,
        opponent1: w === 1 ? { score: 500, result: 'win' } : { score: loserScore },
        opponent2: w === 2 ? { score: 500, result: 'win' } : { score: loserScore },
      });
      reported++;
      const loserId = w === 1 ? m.opponent2.id : m.opponent1.id;
      losses.set(loserId, (losses.get(loserId) || 0) + 1);
      if (m.id === gf1Id) gf1WonByWbSide = w === 1;
      if (m.id === gf2Id) resetPlayed = true;
    }
  }
  const t3 = process.hrtime.bigint();

  // ---- standings
  const standings = await manager.get.finalStandings(stage.id);
  const t4 = process.hrtime.bigint();

  return {
    create_ms: ms(t0, t1),
    play_ms: ms(t2, t3),
    standings_ms: ms(t3, t4),
    // total = create + play + standings (excludes the untimed GF lookup)
    total_ms: ms(t0, t4) - Number(lookupNs) / 1e6,
    matches: reported,
    resetPlayed,
    gf1WonByWbSide,
    losses,
    standings,
    manager,
    stage,
    gf1Id,
    gf2Id,
    wbGroupId: wbGroup.id,
  };
}

// ------------------------------------------------------------- validation
async function validate(r, teams, label) {
  const errs = [];
  const expected = 2 * teams - 2 + (r.resetPlayed ? 1 : 0);
  if (r.matches !== expected) errs.push(`reported ${r.matches} matches, expected ${expected}`);
  if (r.gf1WonByWbSide === null) errs.push('grand final 1 was never played');
  if (r.gf1WonByWbSide === false && !r.resetPlayed) errs.push('losers-side team won GF1 but the reset was not played');
  if (r.gf1WonByWbSide === true && r.resetPlayed) errs.push('reset played although the winners-side team won GF1');

  // The library's own view: every reported match is Completed/Archived.
  const all = await r.manager.storage.select('match', { stage_id: r.stage.id });
  const done = all.filter((m) => m.status >= STATUS.Completed);
  if (done.length !== r.matches) errs.push(`storage has ${done.length} completed/archived matches, reported ${r.matches}`);

  // GF1 opponent1 must be the winners'-bracket champion.
  const gf1 = all.find((m) => m.id === r.gf1Id);
  const wbMatches = all.filter((m) => m.group_id === r.wbGroupId).sort((a, b) => a.id - b.id);
  const wbFinal = wbMatches[wbMatches.length - 1];
  const wbChamp = wbFinal.opponent1.result === 'win' ? wbFinal.opponent1.id : wbFinal.opponent2.id;
  if (gf1.opponent1.id !== wbChamp) errs.push('GF1 opponent1 is not the winners-bracket champion');

  // Loss accounting: everyone but the champion loses exactly twice.
  const s = r.standings;
  if (!Array.isArray(s) || s.length !== teams) errs.push(`standings have ${s && s.length} entries, expected ${teams}`);
  const firsts = s.filter((x) => x.rank === 1);
  if (firsts.length !== 1) errs.push(`${firsts.length} rank-1 entries, expected 1`);
  if (new Set(s.map((x) => x.id)).size !== s.length) errs.push('duplicate participants in standings');
  for (let i = 1; i < s.length; i++) if (s[i].rank < s[i - 1].rank) { errs.push('standings not sorted by rank'); break; }
  if (firsts.length === 1) {
    const champ = firsts[0].id;
    const champLosses = r.losses.get(champ) || 0;
    if (champLosses !== (r.resetPlayed ? 1 : 0)) errs.push(`champion has ${champLosses} losses`);
    let bad = 0;
    for (const p of s) if (p.id !== champ && r.losses.get(p.id) !== 2) bad++;
    if (bad) errs.push(`${bad} non-champion teams do not have exactly 2 losses`);
    const decisive = r.resetPlayed ? all.find((m) => m.id === r.gf2Id) : gf1;
    const gfWinner = decisive.opponent1.result === 'win' ? decisive.opponent1.id : decisive.opponent2.id;
    if (gfWinner !== champ) errs.push('rank-1 team is not the winner of the decisive grand-final match');
  }
  if (errs.length) {
    console.error(`VALIDATION FAILED (${label}):\n  - ${errs.join('\n  - ')}`);
    return false;
  }
  return true;
}

// --------------------------------------------------------------- storages
function makeStorageFactory(kind) {
  if (kind === 'memory') return { make: () => new InMemoryDatabase(), cleanup: () => {}, describe: 'in-memory (brackets-memory-db)' };
  const dir = mkdtempSync(join(tmpdir(), 'brackets-json-db-bench-'));
  let n = 0;
  let lastFile = null;
  return {
    dir,
    make: () => {
      lastFile = join(dir, `run-${n++}.json`);
      return new JsonDatabase(lastFile);
    },
    lastFile: () => lastFile,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
    describe: `JSON file (brackets-json-db) in ${dir}`,
  };
}

// --------------------------------------------------------------- stats
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const r2 = (x) => Math.round(x * 100) / 100;

// ----------------------------------------------------------------- main
async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const wall0 = process.hrtime.bigint();
  const versions = {};
  for (const p of ['brackets-manager', 'brackets-memory-db', 'brackets-json-db', 'brackets-model', 'node-json-db']) {
    versions[p] = JSON.parse(readFileSync(join(here, 'node_modules', p, 'package.json'), 'utf8')).version;
  }
  console.log(`node ${process.version} | ${Object.entries(versions).map(([k, v]) => `${k}@${v}`).join(' ')}`);
  console.log(`teams=${opts.teams} runs=${opts.runs} (+${opts.warmup} warm-up each) seed=${opts.seed}`);

  let ok = true;

  // Untimed self-check of both grand-final paths (no reset / reset), on a
  // small in-memory bracket, so the reset handling is exercised whatever the seed.
  for (const gf1 of ['wb', 'lb']) {
    const r = await runOnce(new InMemoryDatabase(), 16, opts.seed, gf1);
    const good = await validate(r, 16, `self-check gf1=${gf1}`);
    ok = ok && good;
    console.log(`self-check 16 teams, GF1 won by ${gf1 === 'wb' ? "winners'" : "losers'"} side: ${r.matches} matches, reset=${r.resetPlayed} -> ${good ? 'ok' : 'FAILED'}`);
  }

  const results = [];
  for (const kind of opts.storages) {
    const f = makeStorageFactory(kind);
    const runs = [];
    let extra = {};
    try {
      for (let i = 0; i < opts.warmup + opts.runs; i++) {
        const r = await runOnce(f.make(), opts.teams, opts.seed, 'random');
        const good = await validate(r, opts.teams, `${kind} run ${i}`);
        ok = ok && good;
        if (i < opts.warmup) continue; // warm-up, not counted
        runs.push({ create_ms: r.create_ms, play_ms: r.play_ms, standings_ms: r.standings_ms, total_ms: r.total_ms, matches: r.matches, reset: r.resetPlayed });
      }
      if (kind === 'json') extra.file_bytes = statSync(f.lastFile()).size;
    } finally {
      f.cleanup();
    }

    // One extra, untimed, instrumented run for the JSON store: count how many
    // times node-json-db rewrites the file and how many fsyncs it issues.
    if (kind === 'json') {
      const fs = require('fs');
      const f2 = makeStorageFactory('json');
      const orig = { writeFileSync: fs.writeFileSync, fsyncSync: fs.fsyncSync, writeSync: fs.writeSync };
      let writes = 0, bytes = 0, fsyncs = 0;
      fs.writeFileSync = function (p, data, ...rest) { writes++; bytes += Buffer.byteLength(data); return orig.writeFileSync.call(this, p, data, ...rest); };
      fs.fsyncSync = function (...a) { fsyncs++; return orig.fsyncSync.apply(this, a); };
      try {
        const store = f2.make();
        writes = 0; bytes = 0; fsyncs = 0; // exclude the constructor's initial writes
        await runOnce(store, opts.teams, opts.seed, 'random');
      } finally {
        Object.assign(fs, orig);
        f2.cleanup();
      }
      extra = { ...extra, file_rewrites: writes, bytes_written: bytes, fsyncs };
    }

    const med = (k) => r2(median(runs.map((x) => x[k])));
    results.push({
      peer: 'brackets-manager',
      storage: kind,
      teams: opts.teams,
      runs: opts.runs,
      warmup: opts.warmup,
      median_total_ms: med('total_ms'),
      min_total_ms: r2(Math.min(...runs.map((x) => x.total_ms))),
      matches: median(runs.map((x) => x.matches)),
      create_ms: med('create_ms'),
      play_ms: med('play_ms'),
      standings_ms: med('standings_ms'),
      gf_reset: runs.every((x) => x.reset),
      seed: opts.seed,
      node: process.version,
      version: versions['brackets-manager'],
      ...extra,
      _runs: runs,
    });
  }

  // ---- human-readable table
  const cols = ['storage', 'median_total_ms', 'min_total_ms', 'create_ms', 'play_ms', 'standings_ms', 'matches', 'gf_reset'];
  const rows = results.map((r) => cols.map((c) => String(r[c])));
  const widths = cols.map((c, i) => Math.max(c.length, ...rows.map((row) => row[i].length)));
  const line = (cells) => cells.map((c, i) => c.padStart(widths[i])).join('  ');
  console.log('');
  console.log(line(cols));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
  console.log('');
  for (const r of results) {
    console.log(`${r.storage} per-run total_ms: ${r._runs.map((x) => r2(x.total_ms)).join(', ')}`);
    if (r.storage === 'json') {
      console.log(`json: ${r.file_rewrites} whole-file rewrites per tournament, ${(r.bytes_written / 1e6).toFixed(1)} MB written, ${r.fsyncs} fsync calls; final file ${(r.file_bytes / 1e3).toFixed(0)} kB`);
    }
  }
  const wall = ms(wall0, process.hrtime.bigint());
  console.log(`wall time: ${(wall / 1000).toFixed(2)} s`);
  console.log('');

  // ---- machine-readable lines (one per storage)
  for (const r of results) {
    const { _runs, ...rest } = r;
    console.log(JSON.stringify(rest));
  }

  if (!ok) {
    console.error('bench.mjs: validation failed');
    process.exit(1);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
