// `npm run bench -- --only=saves`: the database bytes a first ingest writes, per byte of the final
// database, under the save policy (plugin/storage/save-scheduler.ts), simulated on a hand-driven
// clock (tests/support/save-simulation.ts: the scheduler itself, a job finished every so often,
// the device log's acknowledgement 2 s after a change, the database growing linearly). The two
// vaults of issue 34, at several paces; before the policy (a write every 50 jobs or 30 s) the
// same simulation gave 16.8× for 1,500 notes (measured: 19×) and 64× for 6,249 (measured: 2.5 GB
// written for 16 MB).

import { simulateIngest } from "../../tests/support/save-simulation";

const VAULTS = [
	{ notes: 1_500, finalBytes: 2_900_000 },
	{ notes: 6_249, finalBytes: 16_000_000 },
];
const PACES_MS = [100, 600, 2_000];

export async function runSavesBench(): Promise<void> {
	console.log("\nDatabase writes during a first ingest (simulated; the database grows linearly from 2% of its final size)");
	console.log("| notes | final MB | a job every | ingest min | writes | MB written | database bytes written per final byte |");
	console.log("|---|---|---|---|---|---|---|");
	for (const { notes, finalBytes } of VAULTS) {
		for (const jobMs of PACES_MS) {
			const run = await simulateIngest({ jobs: notes, finalBytes, jobMs });
			const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
			console.log(
				`| ${notes.toLocaleString("en-US")} | ${mb(finalBytes)} | ${jobMs} ms | ${(run.durationMs / 60_000).toFixed(1)} | ${run.writes.length} | ${mb(run.totalBytes)} | ${run.ratio.toFixed(2)} |`,
			);
		}
	}
}
