// Scores a `conformance server --requirements 2026-07-28 -o DIR` run from its checks.json files:
// the 37 scenarios scored at 2026-07-28 must all have run and have no FAILURE check.
// Usage: node score.mjs DIR [LABEL]
// Prints one line per FAILURE or WARNING check of a scored scenario (and per scored scenario
// that did not run), a line of check counts, then the score, last, in the form CI reads:
//   conformance LABEL (37 scored scenarios of 2026-07-28): 37 passed, 0 failed
// A scenario passes when it ran and has no FAILURE check. Exits 1 unless all 37 pass.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// requirements/2026-07-28.yaml of @modelcontextprotocol/conformance@0.2.0-alpha.12 (frozen).
const SCORED = [
  'server-stateless', 'completion-complete', 'tools-list', 'tools-call-simple-text', 'tools-call-image',
  'tools-call-audio', 'tools-call-embedded-resource', 'tools-call-mixed-content', 'tools-call-error',
  'tools-call-with-progress', 'server-sse-multiple-streams', 'resources-list', 'resources-read-text',
  'resources-read-binary', 'resources-templates-read', 'sep-2164-resource-not-found', 'prompts-list',
  'prompts-get-simple', 'prompts-get-with-args', 'prompts-get-embedded-resource', 'prompts-get-with-image',
  'dns-rebinding-protection', 'caching', 'input-required-result-basic-elicitation',
  'input-required-result-basic-sampling', 'input-required-result-basic-list-roots',
  'input-required-result-request-state', 'input-required-result-multiple-input-requests',
  'input-required-result-multi-round', 'input-required-result-missing-input-response',
  'input-required-result-non-tool-request', 'input-required-result-result-type',
  'input-required-result-unsupported-methods', 'input-required-result-tampered-state',
  'input-required-result-capability-check', 'input-required-result-ignore-extra-params',
  'input-required-result-validate-input',
];

const [dir, label = 'results'] = process.argv.slice(2);
const runs = new Map(); // scenario -> checks of its latest run
let entries = [];
try {
  entries = readdirSync(dir).sort();
} catch (err) {
  console.log(`  no results in ${dir}: ${err.code ?? err}`);
}
for (const entry of entries) {
  const m = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(entry);
  if (m) runs.set(m[1], JSON.parse(readFileSync(join(dir, entry, 'checks.json'), 'utf8')));
}

let clean = 0;
const totals = { SUCCESS: 0, FAILURE: 0, WARNING: 0 };
for (const name of SCORED) {
  const checks = runs.get(name);
  if (!checks) {
    console.log(`  ${name}: did not run`);
    continue;
  }
  const count = (s) => checks.filter((c) => c.status === s).length;
  for (const s of Object.keys(totals)) totals[s] += count(s);
  for (const c of checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')) {
    console.log(`  ${name}: ${c.status} ${c.id}: ${c.errorMessage ?? c.description}`);
  }
  if (count('FAILURE') === 0) clean++;
}
console.log(`conformance ${label} checks of the scored scenarios: ${totals.SUCCESS} SUCCESS, ` +
  `${totals.FAILURE} FAILURE, ${totals.WARNING} WARNING`);
console.log(`conformance ${label} (${SCORED.length} scored scenarios of 2026-07-28): ` +
  `${clean} passed, ${SCORED.length - clean} failed`);
process.exit(clean === SCORED.length && totals.FAILURE === 0 ? 0 : 1);
