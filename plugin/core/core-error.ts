// Reads the stable `code` the WebAssembly facade puts on every Error it throws.

/** Error codes the plugin reacts to; the facade may throw others (shown as plain failures). */
export const ErrorCode = {
	storeCorrupt: "store.corrupt",
	storeNewerSchema: "store.newer_schema",
	/** The core's worker did not answer in time: it was ended (and is started again); the call may be made again. */
	workerUnresponsive: "worker.unresponsive",
	/** The core's worker was ended (unload). */
	workerStopped: "worker.stopped",
	/** A custom endpoint this device's user has not confirmed: nothing is sent there. */
	endpointUnconfirmed: "llm.endpoint_unconfirmed",
} as const;

/** The facade's error code of `error`, or undefined for errors that have none. */
export function errorCode(error: unknown): string | undefined {
	if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
	return typeof error.code === "string" ? error.code : undefined;
}

/** A readable message for any thrown value. */
export function errorMessage(error: unknown): string {
	if (error instanceof Error) return error.message;
	if (typeof error === "object" && error !== null && "message" in error) {
		return String(error.message);
	}
	return String(error);
}
