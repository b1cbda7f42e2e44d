// Serves the browser harness (bundled with esbuild at start), the built main.js and styles.css,
// and passes `/model/…` requests on to the fake Bedrock unchanged, Host header included, so the
// page's SigV4 signatures (made for this origin) still verify.

import fs from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, "..", "..");

export interface HarnessServer {
	url: string;
	close(): Promise<void>;
}

async function bundleHarness(): Promise<string> {
	const result = await build({
		entryPoints: [path.join(HERE, "harness", "page.ts")],
		bundle: true,
		format: "iife",
		platform: "browser",
		target: "es2022",
		write: false,
		logLevel: "silent",
	});
	const output = result.outputFiles[0];
	if (!output) throw new Error("esbuild produced no harness bundle");
	return output.text;
}

export async function startHarnessServer({ bedrockUrl }: { bedrockUrl: string }): Promise<HarnessServer> {
	const files: Record<string, { type: string; body: string | Buffer }> = {
		"/": { type: "text/html", body: await fs.readFile(path.join(HERE, "harness", "index.html")) },
		"/harness.js": { type: "text/javascript", body: await bundleHarness() },
		"/obsidian-theme.css": { type: "text/css", body: await fs.readFile(path.join(HERE, "harness", "obsidian-theme.css")) },
		"/styles.css": { type: "text/css", body: await fs.readFile(path.join(ROOT, "styles.css")) },
		"/main.js": { type: "text/javascript", body: await fs.readFile(path.join(ROOT, "main.js")) },
	};
	const bedrock = new URL(bedrockUrl);
	const server = http.createServer((req, res) => {
		const url = req.url ?? "/";
		if (url.startsWith("/model/")) {
			const upstream = http.request(
				{ hostname: bedrock.hostname, port: bedrock.port, method: req.method, path: url, headers: req.headers },
				(answer) => {
					res.writeHead(answer.statusCode ?? 502, answer.headers);
					answer.pipe(res);
				},
			);
			upstream.on("error", () => res.destroy());
			req.pipe(upstream);
			return;
		}
		const file = files[url.split("?")[0] ?? "/"];
		if (!file) {
			res.writeHead(404).end();
			return;
		}
		res.writeHead(200, { "content-type": file.type, "cache-control": "no-store" }).end(file.body);
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
