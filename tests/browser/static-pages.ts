// A page of files served from memory and Chromium to open it: the browser tests of one module
// (pdf.js's text, the platform's pictures), without the plugin's harness.

import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { launchChromium } from "./session";

export interface StaticFile {
	type: string;
	body: string | Uint8Array;
}

export interface StaticPages {
	origin: string;
	browser: Browser;
	close(): Promise<void>;
}

/** Serves `files` by path on 127.0.0.1 (uncached) and starts Chromium. */
export async function serveStaticPages(files: Record<string, StaticFile>): Promise<StaticPages> {
	const server = http.createServer((req, res) => {
		const file = files[(req.url ?? "/").split("?")[0] ?? "/"];
		if (file === undefined) res.writeHead(404).end();
		else res.writeHead(200, { "content-type": file.type, "cache-control": "no-store" }).end(file.body);
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const browser = await launchChromium();
	return {
		origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		browser,
		close: async () => {
			await browser.close();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
