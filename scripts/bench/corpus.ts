// The benchmark's vault: real notes first (the tldr-pages vault in ../shared/vaults, 10,862
// pages in five languages, CC BY 4.0 by the tldr-pages authors), then generated journal and
// meeting notes (people, projects, places, dates) for as many more as the run needs.

import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import { existsSync } from "node:fs";
import path from "node:path";

/**
 * The archive in `shared/vaults` beside the repository (`../shared/vaults`), or beside the
 * folder that holds it (a git worktree sits one level deeper, in `wt/NAME`); the first found.
 */
const TLDR_ARCHIVE =
	[path.resolve(import.meta.dirname, "..", "..", ".."), path.resolve(import.meta.dirname, "..", "..", "..", "..")]
		.map((folder) => path.join(folder, "shared", "vaults", "tldr-pages.tar.gz"))
		.find((candidate) => existsSync(candidate)) ?? "";

/** The real notes, unpacked once into `cacheDir`: their paths inside it, sorted. */
export async function realNotes(cacheDir: string): Promise<{ root: string; paths: string[] } | undefined> {
	if (!existsSync(TLDR_ARCHIVE)) return undefined;
	const root = path.join(cacheDir, "tldr-pages");
	if (!existsSync(root)) {
		await fs.mkdir(root, { recursive: true });
		execFileSync("tar", ["-xzf", TLDR_ARCHIVE, "-C", root]);
	}
	const paths: string[] = [];
	const walk = async (relative: string) => {
		for (const entry of await fs.readdir(path.join(root, relative), { withFileTypes: true })) {
			const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
			if (entry.isDirectory()) await walk(child);
			else if (entry.name.endsWith(".md") && entry.name !== "LICENSE.md") paths.push(child);
		}
	};
	await walk("");
	return { root, paths: paths.sort() };
}

const FIRST = ["Alice", "Bob", "Chen", "Dana", "Elif", "Farid", "Grace", "Hiro", "Ines", "Jonas", "Kemal", "Lena", "Minh", "Nadia", "Omar", "Priya", "Quentin", "Rosa", "Sven", "Thao", "Umar", "Vera", "Wen", "Ximena", "Yusuf", "Zoe", "Linh", "Marco", "Ana", "Tomas"];
const LAST = ["Nguyen", "Tran", "Smith", "Okafor", "Kowalski", "Garcia", "Sato", "Müller", "Rossi", "Haddad", "Silva", "Dubois", "Novak", "Ivanova", "Kim", "Pham", "Larsen", "Costa", "Yilmaz", "Berg"];
const PROJECTS = ["Apollo", "Borealis", "Cedar", "Delta", "Ember", "Fjord", "Granite", "Harbor", "Iris", "Juniper", "Kestrel", "Lumen", "Meridian", "Nimbus", "Orchid", "Pioneer", "Quartz", "Redwood", "Summit", "Tundra"];
const PLACES = ["Lisbon", "Porto", "Hanoi", "Berlin", "Osaka", "Nairobi", "Lyon", "Krakow", "Austin", "Montreal", "Seville", "Da Nang", "Bergen", "Cusco", "Tbilisi"];
const TOPICS = ["budget", "hiring", "roadmap", "launch", "pricing", "security review", "onboarding", "travel", "health", "garden", "reading", "taxes", "school", "marketing", "support backlog"];
const SENTENCES = [
	"{person} said the {topic} for {project} needs another week, and asked for the numbers by Friday.",
	"We agreed that {project} ships the first version in {month}, with {person} owning the checklist.",
	"{person} flew in from {place}; the workshop on {topic} ran over by an hour but ended with a plan.",
	"Open question: who takes over {topic} while {person} is on leave in {month}?",
	"The {topic} numbers look better than last quarter: costs down eleven percent, revenue flat.",
	"{person} recommended a book on negotiation and offered to introduce me to someone at {place}.",
	"Decision: {project} moves its {topic} meeting to Tuesdays, and notes go in the shared folder.",
	"Called {person} about the apartment in {place}; the lease starts on the first of {month}.",
	"Reminder to myself: renew the passport before the trip to {place}, and book the train early.",
	"{person} is worried about the {topic} risk on {project}; we should write it down before the review.",
	"Ran five kilometres along the river before work; knee fine, weather cold and clear.",
	"The team lunch in {place} was loud but good; {person} told the story of the lost luggage again.",
];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** A small deterministic PRNG (xorshift32) so every run writes the same vault. */
function random(seed: number): () => number {
	let x = seed | 0 || 1;
	return () => {
		x ^= x << 13;
		x ^= x >>> 17;
		x ^= x << 5;
		return (x >>> 0) / 4_294_967_296;
	};
}

/** Generated note `n`: a dated journal or meeting note of a few sentences. */
export function generatedNote(n: number): { path: string; text: string } {
	const next = random(n * 7919 + 17);
	const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
	const day = new Date(Date.UTC(2019, 0, 1) + Math.floor(n / 12) * 86_400_000 + (n % 12) * 3_600_000);
	const date = day.toISOString().slice(0, 10);
	const person = `${pick(FIRST)} ${pick(LAST)}`;
	const project = pick(PROJECTS);
	const fill = (template: string) =>
		template
			.replaceAll("{person}", next() < 0.5 ? person : `${pick(FIRST)} ${pick(LAST)}`)
			.replaceAll("{project}", project)
			.replaceAll("{place}", pick(PLACES))
			.replaceAll("{topic}", pick(TOPICS))
			.replaceAll("{month}", pick(MONTHS));
	const meeting = next() < 0.5;
	const title = meeting ? `Meeting with ${person} about ${project}` : `Journal ${date}`;
	const lines = [`# ${title}`, "", `- Date: ${date}`, `- Project: [[${project}]]`, ""];
	const sentences = 2 + Math.floor(next() * 7);
	for (let i = 0; i < sentences; i++) lines.push(fill(pick(SENTENCES)));
	if (next() < 0.4) lines.push("", "## Next steps", "", `- [ ] Send ${person} the notes`, `- [ ] Update the ${project} page`);
	const folder = meeting ? `Meetings/${date.slice(0, 4)}` : `Journal/${date.slice(0, 4)}`;
	return { path: `${folder}/${date} ${meeting ? project : "journal"} ${n}.md`, text: `${lines.join("\n")}\n` };
}

/** Writes notes `from` (inclusive) to `to` (exclusive) into `vaultDir`: real ones first, then generated. */
export async function writeNotes(vaultDir: string, real: { root: string; paths: string[] } | undefined, from: number, to: number): Promise<number> {
	let bytes = 0;
	for (let n = from; n < to; n++) {
		let target: string;
		let text: string;
		if (real !== undefined && n < real.paths.length) {
			const source = real.paths[n]!;
			target = `tldr/${source}`;
			text = await fs.readFile(path.join(real.root, source), "utf8");
		} else {
			({ path: target, text } = generatedNote(n));
		}
		await fs.mkdir(path.dirname(path.join(vaultDir, target)), { recursive: true });
		await fs.writeFile(path.join(vaultDir, target), text);
		bytes += Buffer.byteLength(text);
	}
	return bytes;
}

/**
 * The real notes gathered into larger ones, about `targetBytes` each (Obsidian's help vault,
 * which the store's size target is set against, has 6,249 notes in 32 MB: about 5 KB a
 * note): the pages of each folder in order, each page one section of its note. Returns how
 * many notes and Markdown bytes were written into `vaultDir`.
 */
export async function writeGatheredNotes(vaultDir: string, real: { root: string; paths: string[] }, targetBytes = 5_120): Promise<{ notes: number; bytes: number }> {
	const byFolder = new Map<string, string[]>();
	for (const source of real.paths) {
		const folder = path.dirname(source);
		byFolder.set(folder, [...(byFolder.get(folder) ?? []), source]);
	}
	let notes = 0;
	let bytes = 0;
	const write = async (folder: string, sections: string[], first: string, last: string) => {
		const text = `# ${folder}: ${first} to ${last}\n\n${sections.join("\n")}`;
		const target = path.join(vaultDir, "gathered", folder, `${first} to ${last}.md`);
		await fs.mkdir(path.dirname(target), { recursive: true });
		await fs.writeFile(target, text);
		notes++;
		bytes += Buffer.byteLength(text);
	};
	for (const [folder, pages] of byFolder) {
		let sections: string[] = [];
		let size = 0;
		let first = "";
		let last = "";
		for (const page of pages) {
			// A page's title becomes its section's heading, one level down.
			const text = (await fs.readFile(path.join(real.root, page), "utf8")).replace(/^# /m, "## ");
			const name = path.basename(page, ".md");
			if (sections.length === 0) first = name;
			sections.push(text);
			last = name;
			size += Buffer.byteLength(text);
			if (size >= targetBytes) {
				await write(folder, sections, first, last);
				sections = [];
				size = 0;
			}
		}
		if (sections.length > 0) await write(folder, sections, first, last);
	}
	return { notes, bytes };
}
