// Reads a V8 .cpuprofile (the main thread's) and prints its longest busy stretches — samples
// without idle between them — with the functions that took their time (self time, top 12).
// Usage: node scripts/bench/profile-blocks.mjs <file.cpuprofile> [--min=16]

import fs from "node:fs";

const [file] = process.argv.slice(2);
const min = Number(process.argv.find((arg) => arg.startsWith("--min="))?.slice(6) ?? 16);
/** Seconds into the profile before which stretches are ignored (loading the host and the plugin). */
const after = Number(process.argv.find((arg) => arg.startsWith("--after="))?.slice(8) ?? 0);
const profile = JSON.parse(fs.readFileSync(file, "utf8"));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const label = (id) => {
	const frame = nodes.get(id).callFrame;
	return `${frame.functionName || "(anonymous)"} ${frame.url.split("/").slice(-2).join("/")}:${frame.lineNumber + 1}`;
};
const stack = (id) => {
	const names = [];
	for (let at = id; at !== undefined && names.length < 8; at = parent.get(at)) names.push(nodes.get(at).callFrame.functionName || "(anon)");
	return names.join(" < ");
};
let time = profile.startTime;
const blocks = [];
let current = null;
profile.samples.forEach((id, index) => {
	time += profile.timeDeltas[index];
	const name = nodes.get(id).callFrame.functionName;
	if (name === "(idle)") {
		if (current) blocks.push(current);
		current = null;
		return;
	}
	current ??= { start: time, end: time, self: new Map(), stacks: new Map() };
	current.end = time;
	const key = label(id);
	current.self.set(key, (current.self.get(key) ?? 0) + profile.timeDeltas[index] / 1000);
	const s = stack(id);
	current.stacks.set(s, (current.stacks.get(s) ?? 0) + profile.timeDeltas[index] / 1000);
});
if (current) blocks.push(current);
const long = blocks.map((block) => ({ ...block, ms: (block.end - block.start) / 1000 })).filter((block) => block.ms >= min && block.start - profile.startTime >= after * 1e6).sort((a, b) => b.ms - a.ms);
console.log(`${blocks.length} busy stretches; ${long.length} of at least ${min} ms`);
for (const block of long.slice(0, 10)) {
	console.log(`\n${block.ms.toFixed(1)} ms at +${((block.start - profile.startTime) / 1e6).toFixed(2)} s`);
	for (const [name, ms] of [...block.self].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${ms.toFixed(1).padStart(7)} ms  ${name}`);
	for (const [s, ms] of [...block.stacks].sort((a, b) => b[1] - a[1]).slice(0, 4)) console.log(`  stack ${ms.toFixed(1)} ms: ${s}`);
}
