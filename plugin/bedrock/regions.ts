// The regions offered in the settings: the core's list, or a copy while the core is still loading.

/**
 * A copy of the core's `BEDROCK_REGIONS` (src/llm/config.rs), used only before the WebAssembly
 * has loaded, so the settings tab works from the first second. The core's list wins once loaded.
 */
const FALLBACK_REGIONS: readonly string[] = [
	"us-east-1",
	"us-east-2",
	"us-west-1",
	"us-west-2",
	"ca-central-1",
	"ca-west-1",
	"sa-east-1",
	"mx-central-1",
	"eu-central-1",
	"eu-central-2",
	"eu-west-1",
	"eu-west-2",
	"eu-west-3",
	"eu-north-1",
	"eu-south-1",
	"eu-south-2",
	"il-central-1",
	"me-central-1",
	"me-south-1",
	"af-south-1",
	"ap-south-1",
	"ap-south-2",
	"ap-northeast-1",
	"ap-northeast-2",
	"ap-northeast-3",
	"ap-southeast-1",
	"ap-southeast-2",
	"ap-southeast-3",
	"ap-southeast-4",
	"ap-southeast-5",
	"ap-southeast-7",
	"ap-east-2",
];

/** The regions to offer; `current` is kept even when the list no longer has it, so it stays visible. */
export function regionChoices(coreRegions: string[] | undefined, current: string): string[] {
	const regions = coreRegions !== undefined && coreRegions.length > 0 ? [...coreRegions] : [...FALLBACK_REGIONS];
	if (current !== "" && !regions.includes(current)) regions.unshift(current);
	return regions;
}
