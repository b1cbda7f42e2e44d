// Obsidian's requestUrl for the headless host, over Node's http(s): real requests (to the
// loopback fake Bedrock in tests), every status returned when `throw: false`.

import http from "node:http";
import https from "node:https";
import type { RequestUrlParam, RequestUrlResponse, requestUrl } from "obsidian";

/** Every request the plugin sent, for assertions (e.g. that no secret is in a URL). */
export const sentRequests: RequestUrlParam[] = [];

// Connections are kept open between requests, as Obsidian's requestUrl (Electron's network
// service) does: a new socket per call would make the host, not the plugin, the main thread's
// biggest producer of garbage.
const agents = { "http:": new http.Agent({ keepAlive: true }), "https:": new https.Agent({ keepAlive: true }) };

export const hostRequestUrl = ((param: RequestUrlParam | string) => {
	const request: RequestUrlParam = typeof param === "string" ? { url: param } : param;
	sentRequests.push(request);
	const promise = new Promise<RequestUrlResponse>((resolve, reject) => {
		const url = new URL(request.url);
		const client = url.protocol === "https:" ? https : http;
		const headers: Record<string, string> = { ...(request.headers ?? {}) };
		if (request.contentType && !Object.keys(headers).some((name) => name.toLowerCase() === "content-type")) {
			headers["content-type"] = request.contentType;
		}
		const agent = url.protocol === "https:" ? agents["https:"] : agents["http:"];
		const outgoing = client.request(url, { method: request.method ?? "GET", headers, agent }, (response) => {
			const chunks: Buffer[] = [];
			response.on("data", (chunk: Buffer) => chunks.push(chunk));
			response.on("end", () => {
				const body = Buffer.concat(chunks);
				const status = response.statusCode ?? 0;
				const result: RequestUrlResponse = {
					status,
					headers: Object.fromEntries(Object.entries(response.headers).map(([name, value]) => [name, String(value)])),
					arrayBuffer: body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer,
					// Decoded when asked for, so that a caller reading the bytes pays nothing for text.
					get text() {
						return body.toString("utf8");
					},
					get json() {
						return JSON.parse(body.toString("utf8")) as unknown;
					},
				};
				if (status >= 400 && request.throw !== false) reject(Object.assign(new Error(`Request failed, status ${status}`), { status }));
				else resolve(result);
			});
			response.on("error", reject);
		});
		outgoing.on("error", reject);
		if (request.body !== undefined) outgoing.write(typeof request.body === "string" ? request.body : Buffer.from(request.body));
		outgoing.end();
	});
	return promise;
}) as unknown as typeof requestUrl;
