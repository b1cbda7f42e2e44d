// How requests to AWS reach the fake Bedrock, shared by the page (harness/page.ts) and the
// harness server (harness-server.ts). The plugin calls AWS's own endpoint and signs for its
// host; the page sends such a request to the same path on the harness server, naming the host
// in ORIGINAL_HOST_HEADER, and the server forwards it to the fake with that Host.

/** The header that tells the harness server which AWS host a request was for. */
export const ORIGINAL_HOST_HEADER = "x-harness-original-host";

/** AWS's hosts (`bedrock-runtime.us-east-1.amazonaws.com`, `bedrock.eu-west-1.amazonaws.com`…). */
export function isAwsHost(host: string): boolean {
	return /^[a-z0-9-]+(\.[a-z0-9-]+)*\.amazonaws\.com$/.test(host);
}

/**
 * Where the page sends a request for `url`: an https request to an AWS host goes to `origin`
 * (the harness server) at the same path and query, exactly as signed (not re-encoded), with
 * the host it was for; any other request goes where it was meant to.
 */
export function route(url: string, origin: string): { url: string; originalHost?: string } {
	const target = new URL(url);
	if (target.protocol !== "https:" || target.port !== "" || !isAwsHost(target.hostname)) return { url };
	return { url: `${origin}${url.slice(target.origin.length)}`, originalHost: target.host };
}
