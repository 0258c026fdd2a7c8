// throughput-errors.mjs RUN.json: one line from the JSON report of `fastmcp-bench run
// throughput --json`, for interop/cluster.sh (which needs no jq): the requests answered, the
// failed ones, and the failures by kind, tab-separated ("answered\ttotal\tkind n, kind n").
// A file that cannot be read or parsed prints "?\t-1\t" and exits 1.
import { readFileSync } from "node:fs";

try {
  const run = JSON.parse(readFileSync(process.argv[2], "utf8"));
  const answered = (run.results ?? []).reduce((n, r) => n + (r?.answered ?? 0), 0);
  const kinds = {};
  for (const rep of run.reports ?? []) {
    if (rep.scenario !== "throughput") continue;
    for (const [kind, n] of Object.entries(rep.errors ?? {})) kinds[kind] = (kinds[kind] ?? 0) + n;
  }
  const total = Object.values(kinds).reduce((a, b) => a + b, 0);
  const detail = Object.entries(kinds).map(([k, n]) => `${k} ${n}`).join(", ");
  console.log(`${answered}\t${total}\t${detail}`);
} catch (err) {
  console.error(`throughput-errors: ${process.argv[2]}: ${err.message}`);
  console.log("?\t-1\t");
  process.exit(1);
}
