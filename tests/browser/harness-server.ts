// Serves the browser harness (bundled with esbuild at start), the built main.js and styles.css,
// and passes the page's requests to AWS on to the fake Bedrock.
//
// The plugin in the page calls AWS's own endpoint (no custom endpoint is set) and signs each
// request for that host. The page's requestUrl sends a request to `*.amazonaws.com` here instead,
// same origin, with the host it was for in `x-harness-original-host`; this server forwards it
// to the fake Bedrock with `Host` set back to that host and the marker removed, so the fake's
// check (@smithy/signature-v4 over the Host it receives) verifies the signature made for AWS.

import fs from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { ORIGINAL_HOST_HEADER, isAwsHost } from "./harness/routing";

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
		const original = req.headers[ORIGINAL_HOST_HEADER];
		if (original !== undefined) {
			// Only AWS's hosts are passed on (what the page's requestUrl routes here).
			if (typeof original !== "string" || !isAwsHost(original)) {
				res.writeHead(400).end(`Not an AWS host: ${String(original)}`);
				return;
			}
			const headers: http.OutgoingHttpHeaders = { ...req.headers, host: original };
			delete headers[ORIGINAL_HOST_HEADER];
			const upstream = http.request(
				{ hostname: bedrock.hostname, port: bedrock.port, method: req.method, path: url, headers },
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
