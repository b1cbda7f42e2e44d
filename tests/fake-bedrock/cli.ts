// Runs one fake Bedrock as a process (for browser tests): prints its URL and test keys as one JSON line, stops on SIGTERM or after a bounded lifetime.
//
//   node --import tsx tests/fake-bedrock/cli.ts [--max-lifetime-seconds N]   (default 600, at most 3600)

import { TEST_API_KEY, TEST_CREDENTIALS, TEST_REGION, TEST_SESSION_CREDENTIALS, startFakeBedrock } from "./index";

const DEFAULT_LIFETIME_SECONDS = 600;
const MAX_LIFETIME_SECONDS = 3600;

function lifetimeSeconds(args: readonly string[]): number {
	const at = args.indexOf("--max-lifetime-seconds");
	if (at < 0) return DEFAULT_LIFETIME_SECONDS;
	const value = Number(args[at + 1]);
	if (!Number.isFinite(value) || value <= 0) throw new Error("--max-lifetime-seconds takes a positive number");
	return Math.min(value, MAX_LIFETIME_SECONDS);
}

async function main(): Promise<void> {
	const lifetime = lifetimeSeconds(process.argv.slice(2));
	const fake = await startFakeBedrock();
	let stopping = false;
	const stop = (reason: string): void => {
		if (stopping) return;
		stopping = true;
		clearTimeout(deadline);
		process.stderr.write(`fake-bedrock: stopping (${reason}) after ${fake.requests.length} requests\n`);
		void fake.close().then(() => process.exit(0));
	};
	const deadline = setTimeout(() => stop(`max lifetime of ${lifetime} s`), lifetime * 1000);
	process.once("SIGTERM", () => stop("SIGTERM"));
	process.once("SIGINT", () => stop("SIGINT"));
	process.stdout.write(
		`${JSON.stringify({
			url: fake.url,
			region: TEST_REGION,
			credentials: TEST_CREDENTIALS,
			sessionCredentials: TEST_SESSION_CREDENTIALS,
			apiKey: TEST_API_KEY,
			pid: process.pid,
			maxLifetimeSeconds: lifetime,
		})}\n`,
	);
}

main().catch((error: unknown) => {
	console.error("fake-bedrock:", error);
	process.exit(1);
});
