// A virtual clock for tests of long waits (90 s of throttling): time runs `scale` times faster
// than the machine's, the same for the plugin's realm, its worker thread and the fake Bedrock,
// so dates computed on one side (the core's "retry at", the signature's date, the fake's
// throttling window and its 5-minute signature check) agree with the others, and the waits
// between them, set with the scaled timers, pass `scale` times sooner.

export interface VirtualClock {
	/** How many times faster than the machine's clock. */
	readonly scale: number;
	/** The machine's time (ms since the epoch) at which both clocks read the same. */
	readonly origin: number;
	/** The virtual time, ms since the epoch. */
	now(): number;
}

export function virtualClock(scale: number, origin = Date.now()): VirtualClock {
	if (!(scale >= 1)) throw new Error(`a virtual clock runs at least as fast as the real one, not ${scale}×`);
	return { scale, origin, now: () => origin + (Date.now() - origin) * scale };
}

/**
 * The source of a `Date` whose `now()` and argument-less constructor read the virtual clock,
 * for a realm or thread where `RealDate` is its own `Date` (one source for both places).
 */
export function virtualDateSource(clock: VirtualClock): string {
	return `((RealDate) => {
	const origin = ${JSON.stringify(clock.origin)};
	const scale = ${JSON.stringify(clock.scale)};
	const now = () => origin + (RealDate.now() - origin) * scale;
	class VirtualDate extends RealDate {
		constructor(...args) {
			if (args.length === 0) super(now());
			else super(...args);
		}
		static now() {
			return now();
		}
	}
	return VirtualDate;
})`;
}
