// Carries the core's HTTP requests over Obsidian's requestUrl: no CORS limits, works on mobile.

import type { RequestUrlParam, RequestUrlResponse } from "obsidian";
import type { HostRequest, HostResponse } from "../core/memory-core-api";

/** Obsidian's `requestUrl`, injected so the headless host and tests can supply their own. */
export type RequestUrlFn = (request: RequestUrlParam) => Promise<RequestUrlResponse>;

// Chromium and Node words for "there is no network at all", as opposed to a broken connection.
const OFFLINE = /ERR_INTERNET_DISCONNECTED|ERR_NAME_NOT_RESOLVED|ERR_NETWORK_CHANGED|ENOTFOUND|EAI_AGAIN|ENETUNREACH|getaddrinfo/i;

/** The bytes as an ArrayBuffer of their own (the worker's arrays own theirs: no copy then). */
function ownBuffer(bytes: Uint8Array): ArrayBuffer {
	const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
	return whole ? (bytes.buffer as ArrayBuffer) : bytes.slice().buffer;
}

/** The core's `send`: every status comes back (`throw: false`); only a failed connection rejects. */
export function requestUrlSend(requestUrl: RequestUrlFn): (request: HostRequest) => Promise<HostResponse> {
	return async (request) => {
		try {
			const response = await requestUrl({
				url: request.url,
				method: request.method,
				headers: request.headers,
				body: ownBuffer(request.body),
				throw: false,
			});
			return { status: response.status, headers: response.headers, body: new Uint8Array(response.arrayBuffer) };
		} catch (error) {
			const message = error instanceof Error ? error.message : String(error);
			throw Object.assign(new Error(message), { code: OFFLINE.test(message) ? "offline" : "network" });
		}
	};
}
