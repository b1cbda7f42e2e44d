// The worker of the image browser test: render-image.ts with the worker's own platform, as
// plugin/worker/worker-main.ts wires it.

import type { ImageRender } from "../../../build/pkg/memory_agent.js";
import { renderImage, workerImagePlatform } from "../../../plugin/worker/render-image";

const scope = self as unknown as { onmessage: ((event: MessageEvent) => void) | null; postMessage(message: unknown): void };
scope.onmessage = (event) => {
	const { bytes, request } = event.data as { bytes: Uint8Array; request: ImageRender };
	const platform = workerImagePlatform(self as never);
	if (platform === undefined) {
		scope.postMessage({ ok: false, error: { message: "this worker has no createImageBitmap or OffscreenCanvas" } });
		return;
	}
	renderImage(platform, bytes, request).then(
		(value) => scope.postMessage({ ok: true, value }),
		(error: { message: string; code?: string }) => scope.postMessage({ ok: false, error: { message: error.message, code: error.code } }),
	);
};
