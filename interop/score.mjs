// Scores a conformance run from its checks.json files (`conformance server ... -o DIR`) against
// one set of scenarios, which must all have run and have no FAILURE check:
//   2026-07-28       the 37 scored by `--requirements 2026-07-28` (the default set)
//   2025-11-25       the 30 scored by `--requirements 2025-11-25`
//   spec-2025-11-25  the 31 that `--spec-version 2025-11-25` runs (suite active: the pending
//                    json-schema-2020-12 and server-sse-polling excluded)
//   spec-2025-06-18  the 27 that `--spec-version 2025-06-18` runs
//   tasks            the 10 tasks-* scenarios (io.modelcontextprotocol/tasks) that the
//                    2026-07-28 run shows but does not score (not_scored: extension)
// For the spec-* sets every scenario that ran counts, listed or not.
// Usage: node score.mjs DIR [LABEL] [SET]
// Prints one line per FAILURE or WARNING check of a counted scenario (and per listed scenario
// that did not run), a line of check counts, then the score, last, in the form CI reads:
//   conformance LABEL (37 scored scenarios of 2026-07-28): 37 passed, 0 failed
//   conformance LABEL (27 scenarios of --spec-version 2025-06-18): 27 passed, 0 failed
// A scenario passes when it ran and has no FAILURE check. Exits 1 unless all pass.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// requirements/2026-07-28.yaml of @modelcontextprotocol/conformance@0.2.0-alpha.12 (frozen).
const SCORED_2026 = [
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

// The server scenarios of `--spec-version 2025-06-18` (`conformance list --server`).
const SPEC_2025_06_18 = [
  'server-initialize', 'server-session-lifecycle', 'logging-set-level', 'ping', 'completion-complete',
  'tools-list', 'tools-call-simple-text', 'tools-call-image', 'tools-call-audio',
  'tools-call-embedded-resource', 'tools-call-mixed-content', 'tools-call-with-logging', 'tools-call-error',
  'tools-call-with-progress', 'tools-call-sampling', 'tools-call-elicitation', 'resources-list',
  'resources-read-text', 'resources-read-binary', 'resources-templates-read', 'resources-subscribe',
  'resources-unsubscribe', 'prompts-list', 'prompts-get-simple', 'prompts-get-with-args',
  'prompts-get-embedded-resource', 'prompts-get-with-image',
];

// 2025-11-25 adds these (the pending json-schema-2020-12 and server-sse-polling run only with
// --suite all or pending).
const ADDED_2025_11_25 = [
  'elicitation-sep1034-defaults', 'server-sse-multiple-streams', 'elicitation-sep1330-enums',
  'dns-rebinding-protection',
];

// requirements/2025-11-25.yaml (frozen at 0.2.0-alpha.10): the server scenarios above minus
// server-session-lifecycle (added after the release, not scored).
const SCORED_2025_11_25 = [...SPEC_2025_06_18, ...ADDED_2025_11_25].filter((n) => n !== 'server-session-lifecycle');

// The Tasks extension's scenarios of 0.2.0-alpha.12 (tasks-status-notifications has one
// check, which the suite itself skips).
const TASKS = [
  'tasks-lifecycle', 'tasks-capability-negotiation', 'tasks-wire-fields', 'tasks-request-state-removal',
  'tasks-mrtr-input', 'tasks-request-headers', 'tasks-dispatch-and-envelope', 'tasks-status-notifications',
  'tasks-required-task-error', 'tasks-mrtr-composition',
];

const SETS = {
  tasks: { list: TASKS, what: 'tasks-* scenarios of 2026-07-28' },
  '2026-07-28': { list: SCORED_2026, what: 'scored scenarios of 2026-07-28' },
  '2025-11-25': { list: SCORED_2025_11_25, what: 'scored scenarios of 2025-11-25' },
  'spec-2025-11-25': { list: [...SPEC_2025_06_18, ...ADDED_2025_11_25], what: 'scenarios of --spec-version 2025-11-25', all: true },
  'spec-2025-06-18': { list: SPEC_2025_06_18, what: 'scenarios of --spec-version 2025-06-18', all: true },
};

const [dir, label = 'results', setName = '2026-07-28'] = process.argv.slice(2);
const set = SETS[setName];
if (!set) {
  console.error(`score.mjs: unknown set ${setName} (known: ${Object.keys(SETS).join(', ')})`);
  process.exit(2);
}
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
const counted = set.all ? [...new Set([...set.list, ...runs.keys()])] : set.list;
for (const name of counted) {
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
console.log(`conformance ${label} checks of the ${set.what}: ${totals.SUCCESS} SUCCESS, ` +
  `${totals.FAILURE} FAILURE, ${totals.WARNING} WARNING`);
console.log(`conformance ${label} (${counted.length} ${set.what}): ${clean} passed, ${counted.length - clean} failed`);
process.exit(clean === counted.length && totals.FAILURE === 0 ? 0 : 1);
