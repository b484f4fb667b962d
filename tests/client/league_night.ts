// A league night through a client generated from the served OpenAPI document, as an IT
// office or a student developer would write it: `schema.d.ts` is what openapi-typescript
// makes of /api/v1/openapi.json (tests/api/generated_client.rs generates it next to this
// file, type-checks both with tsc and runs the result with node), and the calls go through
// openapi-fetch. Nothing here is edited to fit: a document that does not say what the server
// takes fails the type check or a step below.
import createClient from "openapi-fetch";
import type { paths } from "./schema.js";

// Node's globals, without @types/node: the two this script uses.
declare const process: {
  env: Record<string, string | undefined>;
  exitCode: number | undefined;
};

const base = process.env.SPADES_URL;
const token = process.env.SPADES_TOKEN;
if (!base || !token) {
  throw new Error("SPADES_URL and SPADES_TOKEN name the server and an admin's token");
}
const api = createClient<paths>({
  baseUrl: base,
  headers: { Authorization: `Bearer ${token}` },
});

/** The answer's data, or a failure naming the step, the status and the error body. */
function ok<T>(step: string, answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.data === undefined) {
    const error = JSON.stringify(answer.error);
    throw new Error(`${step}: ${answer.response.status} ${error}`);
  }
  return answer.data;
}

/** Sends `call` again while the server answers 503 `busy` ("not saved, send again": a write
 * that waited too long for the database), as docs/api.md asks of every client. */
async function patiently<T extends { response: Response }>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const answer = await call();
    if (answer.response.status !== 503 || attempt === 8) {
      return answer;
    }
    await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
  }
}

function check(condition: boolean, what: string): void {
  if (!condition) {
    throw new Error(what);
  }
}

const league = ok(
  "create the league",
  await patiently(() =>
    api.POST("/api/v1/leagues", {
      body: { name: "Generated Client Cup", rules: { regular: "unc-im-300" } },
    }),
  ),
);
const slug = league.slug;

const teams: { id: number }[] = [];
for (const [name, players] of [
  ["Aces", ["Ana Ruiz", "Ben Okafor"]],
  ["Kings", ["Cy Park", "Di Moss"]],
] as const) {
  const team = ok(
    `add ${name}`,
    await patiently(() =>
      api.POST("/api/v1/leagues/{slug}/teams", {
        params: { path: { slug } },
        body: { name, players: [...players] },
      }),
    ),
  );
  teams.push(team);
}

const match = ok(
  "schedule the match",
  await patiently(() =>
    api.POST("/api/v1/leagues/{slug}/matches", {
      params: { path: { slug } },
      body: { team_a: teams[0].id, team_b: teams[1].id, table: "Table 1" },
    }),
  ),
);

const started = ok(
  "start the match",
  await patiently(() =>
    api.POST("/api/v1/matches/{id}/start", { params: { path: { id: match.id } } }),
  ),
);
check(started.status === "in_progress", `the started match is ${started.status}`);

// Team a bids 4 + 3 and takes 8 (70 points, a bag); team b bids 2 + 2 and takes 5 (40, a bag).
const recorded = await patiently(() => api.POST("/api/v1/matches/{id}/hands", {
  params: { path: { id: match.id }, header: { Prefer: "return=minimal" } },
  body: {
    hand: {
      a: { bids: [4, 3], tricks: [5, 3] },
      b: { bids: [2, 2], tricks: [3, 2] },
    },
    expected_version: started.version,
    idempotency_key: "generated-client-hand-1",
  },
}));
const totals = ok("record a hand", recorded);
check(recorded.response.status === 201, `a hand is answered ${recorded.response.status}`);
check(
  recorded.response.headers.get("Preference-Applied") === "return=minimal",
  "the light answer was applied",
);
check("number" in totals && totals.number === 1, `hand 1: ${JSON.stringify(totals)}`);
check(
  "a" in totals && totals.a.score === 71 && totals.b.score === 41,
  `the totals after hand 1: ${JSON.stringify(totals)}`,
);

const standings = ok(
  "read the standings",
  await patiently(() =>
    api.GET("/api/v1/leagues/{slug}/standings", { params: { path: { slug } } }),
  ),
);
const names = standings.rows.map((row) => row.team).sort();
check(
  JSON.stringify(names) === JSON.stringify(["Aces", "Kings"]),
  `the standings list both teams: ${JSON.stringify(standings.rows)}`,
);

console.log(`a league night through the generated client: ${slug}, match ${match.id}, 71-41`);
