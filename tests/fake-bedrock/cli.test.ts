// Tests of the fake Bedrock's command-line entry: it announces itself in one JSON line, serves, and stops on SIGTERM.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { it } from "node:test";
import { converseBody, conversePath, send } from "./signing-client";

const CLI = fileURLToPath(new URL("./cli.ts", import.meta.url));

it("prints its URL and keys as one JSON line, serves requests, and stops on SIGTERM", async () => {
	const child = spawn(process.execPath, ["--import", "tsx", CLI, "--max-lifetime-seconds", "30"], { stdio: ["ignore", "pipe", "pipe"] });
	try {
		let stdout = "";
		child.stdout.setEncoding("utf8");
		while (!stdout.includes("\n")) {
			const [chunk] = (await once(child.stdout, "data")) as [string];
			stdout += chunk;
		}
		const announced = JSON.parse(stdout.split("\n")[0] ?? "") as { url: string; apiKey: string; maxLifetimeSeconds: number };
		assert.match(announced.url, /^http:\/\/127\.0\.0\.1:\d+$/);
		assert.equal(announced.maxLifetimeSeconds, 30);
		const response = await send(announced.url, {
			method: "POST",
			path: conversePath(),
			headers: { authorization: `Bearer ${announced.apiKey}`, "content-type": "application/json" },
			body: converseBody(),
		});
		assert.equal(response.status, 200, response.body);
		child.kill("SIGTERM");
		const [code] = (await once(child, "exit")) as [number | null];
		assert.equal(code, 0);
	} finally {
		if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
	}
});
