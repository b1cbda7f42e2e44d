// The harness's local fake Bedrock is not AWS's own endpoint, so the core sends nothing there
// until this device's user confirms it. Tests confirm it the way a user's "yes" is kept: in
// the device's local storage (the plugin's own `storage/trusted-endpoint.ts`), never in
// data.json, which is synced and so is no confirmation.

import { endpointHostOf, trustEndpointHost } from "../../plugin/storage/trusted-endpoint";
import type { Host } from "../host/host";

/** As if this device's user had answered yes to "Send your AWS credentials to <host>?". */
export function confirmEndpointOnThisDevice(host: Host, endpoint: string): void {
	const name = endpointHostOf(endpoint);
	if (name === null) throw new Error(`${endpoint} has no host to confirm`);
	trustEndpointHost(host.app, name);
}
