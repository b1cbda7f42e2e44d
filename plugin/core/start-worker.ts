// Starts the core's Web Worker from the worker bundle inlined in main.js: a Blob URL, so
// nothing is fetched or written to disk, on desktop and on mobile alike.

import WORKER_SOURCE from "inline-worker:../worker/worker-main.ts";
import type { WorkerLike } from "./core-client";

/** The platform's Worker constructor and Blob URLs (injected: tests and the headless host bring their own). */
export interface WorkerPlatform {
	Worker: new (url: string, options?: { name?: string }) => WorkerLike;
	createObjectURL(blob: Blob): string;
	revokeObjectURL(url: string): void;
}

/** A started worker, and a way to release its script's URL once the worker has answered. */
export interface StartedWorker {
	worker: WorkerLike;
	release(): void;
}

export function startCoreWorker(platform: WorkerPlatform): StartedWorker {
	const url = platform.createObjectURL(new Blob([WORKER_SOURCE], { type: "text/javascript" }));
	let released = false;
	const release = () => {
		if (released) return;
		released = true;
		platform.revokeObjectURL(url);
	};
	try {
		return { worker: new platform.Worker(url, { name: "memory-agent-core" }), release };
	} catch (error) {
		release();
		throw error;
	}
}
