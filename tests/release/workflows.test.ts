// The GitHub workflows as GitHub reads them (parsed YAML, not text searches): CI runs the README's
// own two commands on every push and pull request; a release starts from a version tag only,
// checks it first, attests and attaches exactly the plugin's three files, the command's three
// archives and their SHA256SUMS.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { parse } from "yaml";

const ROOT = path.resolve(import.meta.dirname, "..", "..");

type Step = { name?: string; uses?: string; run?: string; with?: Record<string, unknown> };
type Job = {
	needs?: string | string[];
	permissions?: Record<string, string>;
	"runs-on"?: string;
	strategy?: { matrix?: { include?: Record<string, string>[] } };
	steps: Step[];
};
type Workflow = { on: Record<string, unknown>; permissions?: unknown; jobs: Record<string, Job> };

function readWorkflow(name: string): Workflow {
	return parse(fs.readFileSync(path.join(ROOT, ".github", "workflows", name), "utf8")) as Workflow;
}

/** The README's fresh-machine commands: the first two `sh` blocks after it says "fresh machine". */
function readmeCommands(): { setup: string; test: string } {
	const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
	const start = readme.indexOf("fresh machine");
	assert.ok(start >= 0, 'the README names its "fresh machine" commands');
	const blocks = [...readme.slice(start).matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => (match[1] ?? "").trim());
	const [setup, testCommand] = blocks;
	assert.ok(setup !== undefined && testCommand !== undefined, "two command blocks follow");
	return { setup, test: testCommand };
}

/** A shell command line as words: continuation lines joined, quotes removed. Enough for the
 * workflows' own commands (no nested quoting). */
function shellWords(command: string): string[] {
	return [...command.replace(/\\\n/g, " ").matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? "");
}

/** GitHub's filter pattern (`*`, `+`, `?`, `[...]`; docs.github.com, "Filter pattern cheat
 * sheet") as a regular expression over a whole tag name. */
function filterPattern(pattern: string): RegExp {
	let source = "";
	for (let index = 0; index < pattern.length; index++) {
		const char = pattern[index] ?? "";
		if (char === "*") source += pattern[index + 1] === "*" ? (index++, ".*") : "[^/]*";
		else if (char === "[") {
			const end = pattern.indexOf("]", index);
			source += pattern.slice(index, end + 1);
			index = end;
		} else if (char === "+" || char === "?") source += char;
		else source += char.replace(/[.\\^$|(){}]/g, "\\$&");
	}
	return new RegExp(`^${source}$`);
}

function runSteps(job: Job): string[] {
	return job.steps.flatMap((step) => (step.run === undefined ? [] : [step.run.trim()]));
}

function needsOf(job: Job): string[] {
	return job.needs === undefined ? [] : [job.needs].flat();
}

function attestSteps(job: Job): Step[] {
	return job.steps.filter((step) => step.uses?.startsWith("actions/attest-build-provenance@") === true);
}

function subjectPaths(step: Step): string[] {
	return String(step.with?.["subject-path"] ?? "")
		.split("\n")
		.map((line) => line.trim())
		.filter((line) => line !== "");
}

function assertCanAttest(job: Job, name: string): void {
	assert.equal(job.permissions?.["id-token"], "write", `${name}: id-token: write (Sigstore's OIDC token)`);
	assert.equal(job.permissions?.attestations, "write", `${name}: attestations: write`);
}

function jobNamed(workflow: Workflow, name: string): Job {
	const job = workflow.jobs[name];
	assert.ok(job !== undefined, `the workflow has a ${name} job`);
	return job;
}

test("CI runs on every push and pull request, exactly the README's setup and test commands", () => {
	const ci = readWorkflow("ci.yml");
	assert.deepEqual(Object.keys(ci.on).sort(), ["pull_request", "push"]);
	assert.equal(ci.on.push, null, "every branch and tag");
	assert.equal(ci.on.pull_request, null, "every pull request");
	const jobs = Object.values(ci.jobs);
	assert.equal(jobs.length, 1);
	const job = jobs[0] as Job;
	assert.match(job["runs-on"] ?? "", /^ubuntu-/);
	const { setup, test: testCommand } = readmeCommands();
	const npmCommands = runSteps(job).filter((run) => /^npm /.test(run));
	assert.deepEqual(npmCommands, [setup, testCommand], "the README's two commands, in order, and no other npm command");

	const node = job.steps.find((step) => step.uses?.startsWith("actions/setup-node@"));
	assert.equal(node?.with?.["node-version"], 20);
	assert.equal(node?.with?.cache, "npm");
	const runs = runSteps(job).join("\n");
	assert.match(runs, /apt-get install .*chromium/, "Chromium for the browser tests");
	assert.match(runs, /rustup toolchain install/, "the toolchain rust-toolchain.toml pins");
	const setupIndex = runSteps(job).indexOf(setup);
	const rustIndex = runSteps(job).findIndex((run) => run.includes("rustup"));
	assert.ok(rustIndex >= 0 && rustIndex < setupIndex, "Rust is there before the build");
});

test("a release starts only from a plain version tag, and first checks it against the versions", () => {
	const release = readWorkflow("release.yml");
	assert.deepEqual(Object.keys(release.on), ["push"], "no other trigger");
	const push = release.on.push as Record<string, string[]>;
	assert.deepEqual(Object.keys(push), ["tags"], "tags only, no branches");
	const patterns = (push.tags ?? []).map(filterPattern);
	const matches = (tag: string) => patterns.some((pattern) => pattern.test(tag));
	for (const tag of ["0.1.0", "1.2.3", "10.20.30"]) assert.ok(matches(tag), `${tag} releases`);
	for (const tag of ["v1.2.3", "1.2", "1.2.3.4", "latest", "1.2.x"]) assert.ok(!matches(tag), `${tag} does not`);

	const version = jobNamed(release, "version");
	const check = runSteps(version).find((run) => run.includes("release-assets.mjs"));
	assert.deepEqual(shellWords(check ?? ""), ["node", "scripts/release-assets.mjs", "--tag", "$GITHUB_REF_NAME"]);
	assert.deepEqual(release.permissions, {}, "no job gets a permission it does not ask for");
	// Every other job waits for the check, directly or through another job.
	const waitsForCheck = (name: string, seen = new Set<string>()): boolean =>
		name === "version" || (!seen.has(name) && needsOf(jobNamed(release, name)).some((need) => waitsForCheck(need, seen.add(name))));
	for (const name of Object.keys(release.jobs)) assert.ok(waitsForCheck(name), `${name} runs after the version check`);
});

test("the plugin is built with the README's setup command and its three files attested", () => {
	const release = readWorkflow("release.yml");
	const plugin = jobNamed(release, "plugin");
	assert.ok(runSteps(plugin).includes(readmeCommands().setup));
	const attests = attestSteps(plugin);
	assert.equal(attests.length, 1);
	assert.deepEqual(subjectPaths(attests[0] as Step).sort(), ["main.js", "manifest.json", "styles.css"]);
	assertCanAttest(plugin, "plugin");
	assert.notEqual(plugin.permissions?.contents, "write", "building needs no write access");
});

test("memory-agent is built, packed and attested for Linux, macOS and Windows", () => {
	const binaries = jobNamed(readWorkflow("release.yml"), "binaries");
	const matrix = binaries.strategy?.matrix?.include ?? [];
	const byOs = (prefix: string) => matrix.find((entry) => entry.os?.startsWith(prefix));
	assert.equal(byOs("ubuntu-")?.target, "x86_64-unknown-linux-gnu");
	assert.equal(byOs("macos-")?.target, "aarch64-apple-darwin");
	assert.equal(byOs("windows-")?.target, "x86_64-pc-windows-msvc");
	assert.equal(byOs("windows-")?.archive, "zip");
	assert.equal(matrix.length, 3);
	assert.ok(
		runSteps(binaries).includes("cargo build --release --locked --features cli --bin memory-agent"),
		"the locked versions, the command only",
	);
	const attests = attestSteps(binaries);
	assert.equal(attests.length, 1);
	assert.deepEqual(subjectPaths(attests[0] as Step), ["dist/${{ env.PACKAGE }}.${{ matrix.archive }}"]);
	assertCanAttest(binaries, "binaries");
});

test("the release attaches exactly the plugin's files, the three archives and SHA256SUMS", () => {
	const release = readWorkflow("release.yml");
	const job = jobNamed(release, "release");
	assert.deepEqual(needsOf(job).sort(), ["binaries", "plugin"]);
	assert.equal(job.permissions?.contents, "write", "creating a release writes to the repository");

	const create = runSteps(job).find((run) => run.startsWith("gh release create"));
	assert.ok(create !== undefined, "gh release create");
	const words = shellWords(create).slice(3);
	assert.ok(words.includes("--draft"));
	const [tag, ...assets] = words.filter((word) => !word.startsWith("-"));
	assert.equal(tag, "$TAG");

	const matrix = jobNamed(release, "binaries").strategy?.matrix?.include ?? [];
	const archives = matrix.map((entry) => `memory-agent-$TAG-${entry.target}.${entry.archive}`);
	const expected = ["main.js", "manifest.json", "styles.css", ...archives, "SHA256SUMS"];
	assert.deepEqual([...assets].sort(), [...expected].sort());

	// What the collect step puts into dist/ is what is attached, checksums aside.
	const collect = runSteps(job).find((run) => run.includes("release-assets.mjs")) ?? "";
	const collected = shellWords(collect)
		.filter((word) => word.startsWith("artifacts/"))
		.map((file) => path.basename(file));
	assert.deepEqual(collected.sort(), expected.filter((name) => name !== "SHA256SUMS").sort());
	assert.match(collect, /sha256sum -c SHA256SUMS/);

	// Each file is collected from where the job that made it uploaded it (download-artifact puts
	// an artifact in artifacts/<its name>/) under the name that job packed it as.
	const uploadName = (job: Job) => job.steps.find((step) => step.uses?.startsWith("actions/upload-artifact@"))?.with?.name;
	const binaries = jobNamed(release, "binaries") as Job & { env?: Record<string, string> };
	const where = new Map(
		shellWords(collect)
			.filter((word) => word.startsWith("artifacts/"))
			.map((file) => [path.basename(file), path.dirname(file)]),
	);
	for (const name of ["main.js", "manifest.json", "styles.css"]) assert.equal(where.get(name), `artifacts/${String(uploadName(jobNamed(release, "plugin")))}`);
	assert.equal(binaries.env?.PACKAGE, "memory-agent-${{ github.ref_name }}-${{ matrix.target }}");
	assert.equal((job as Job & { env?: Record<string, string> }).env?.TAG, "${{ github.ref_name }}", "$TAG is the pushed tag");
	for (const entry of matrix) {
		const folder = String(uploadName(binaries)).replace("${{ matrix.target }}", entry.target ?? "");
		assert.equal(where.get(`memory-agent-$TAG-${entry.target}.${entry.archive}`), `artifacts/${folder}`);
	}
});

test("every action is pinned to a major version", () => {
	for (const name of ["ci.yml", "release.yml"]) {
		for (const job of Object.values(readWorkflow(name).jobs)) {
			for (const step of job.steps.filter((s) => s.uses !== undefined)) {
				assert.match(step.uses ?? "", /^actions\/[a-z-]+@v\d+$/, `${name}: ${step.uses}`);
			}
		}
	}
});
