/* Runs the pages' rule scripts under node, without a browser, for tests/test_submit_parity.py.
   Loads hit_templates/validation.js and judgement.js with a bare `window` global, then reads one
   JSON object per stdin line (ASCII JSON: escaped) and writes one JSON verdict per stdout line, in order:
     {"text": ..., "spec": {...}}             -> window.hitflowRules.violations(text, spec)
     {"question": {...}, "values": {...}}     -> window.hitflowJudgement.broken(question, values) */
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

const templates = path.join(__dirname, "..", "..", "hit_templates");
const sandbox = { window: {} };
vm.createContext(sandbox);
for (const name of ["validation.js", "judgement.js"]) {
  vm.runInContext(fs.readFileSync(path.join(templates, name), "utf8"), sandbox, { filename: name });
}
const rules = sandbox.window.hitflowRules;
const judgement = sandbox.window.hitflowJudgement;

// One line in, one line out, as each arrives: a test keeps one node process for all its examples.
const input = require("readline").createInterface({ input: process.stdin, crlfDelay: Infinity });
input.on("line", (line) => {
  if (line === "") { return; }
  const job = JSON.parse(line);
  const verdict = "question" in job ? judgement.broken(job.question, job.values) : rules.violations(job.text, job.spec);
  process.stdout.write(JSON.stringify(verdict) + "\n");
});
