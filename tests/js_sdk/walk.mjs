// Runs a plan of MTurk calls (tests/mturk_walk.py) through the AWS SDK for JavaScript v3.
// stdin: {"endpoint": url, "calls": [{op, params, paginate?}]}; stdout: one result per call.
import * as mturk from "@aws-sdk/client-mturk";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const { endpoint, calls } = JSON.parse(Buffer.concat(chunks).toString());
const client = new mturk.MTurkClient({
  endpoint, region: "us-east-1", maxAttempts: 1,
  credentials: { accessKeyId: "dummy", secretAccessKey: "dummy" },
});

// A timestamp travels in the plan as {"$epoch": seconds}; the SDK takes a Date.
const inputOf = (params) => Object.fromEntries(Object.entries(params).map(([k, v]) =>
  [k, v && typeof v === "object" && "$epoch" in v ? new Date(v.$epoch * 1000) : v]));

async function run(call) {
  const input = inputOf(call.params);
  if (call.paginate) {
    const items = [];
    for await (const page of mturk[`paginate${call.op}`]({ client, pageSize: 2 }, input)) {
      items.push(...(page[call.paginate] ?? []));
    }
    return { ok: true, reply: items };
  }
  const { $metadata, ...reply } = await client.send(new mturk[`${call.op}Command`](input));
  return { ok: true, reply, status: $metadata.httpStatusCode };
}

const results = [];
for (const call of calls) {
  try {
    results.push(await run(call));
  } catch (err) {
    results.push({ ok: false, name: err.name, code: err.TurkErrorCode ?? null, message: err.message });
  }
}
process.stdout.write(JSON.stringify(results));
