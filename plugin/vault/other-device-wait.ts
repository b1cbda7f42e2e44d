// Paying once when devices share the memory: a note changed on another device arrives here
// through the sync tool, and so, a little later, does that device's memory of it. Such a
// change (one not typed in this device's editor) waits longer before it is read, once the
// memory is known to be shared — the merge before the work then finds the note remembered,
// and nothing is sent. Notes typed here, and every note while the memory is not shared,
// wait the usual quiet delay.

/** How soon after typing the editor saves the note (Obsidian saves every 2 s as one types). */
const SAVED_AFTER_TYPING_MS = 10_000;

export interface OtherDeviceWaitDeps {
	quietDelayMs(): number;
	otherDeviceWaitMs(): number;
	/** Whether another device's copy of the memory was ever merged into this one. */
	shared(): boolean;
	now(): number;
}

export class OtherDeviceWait {
	private readonly typed = new Map<string, number>();

	constructor(private readonly deps: OtherDeviceWaitDeps) {}

	/** The editor changed `path`: its next save is this device's own. */
	typedIn(path: string): void {
		this.typed.set(path, this.deps.now());
		// The map holds the notes typed in and not saved yet, not every note ever opened.
		if (this.typed.size > 1_000) {
			const cutoff = this.deps.now() - SAVED_AFTER_TYPING_MS;
			for (const [typedPath, at] of this.typed) if (at < cutoff) this.typed.delete(typedPath);
		}
	}

	/**
	 * How long a change to `path` waits before the note is read. A change counts as typed here
	 * when the editor changed the note just before it; the mark is used up by that change, so a
	 * change the sync tool brings later is the other device's. Typing into a note that came from
	 * another device ends its wait: this device wrote the version to remember (waiting too would
	 * have both devices wait for each other, and both pay).
	 */
	delayFor(path: string): number {
		const quiet = this.deps.quietDelayMs();
		const typedAt = this.typed.get(path);
		this.typed.delete(path);
		const typedHere = typedAt !== undefined && this.deps.now() - typedAt <= SAVED_AFTER_TYPING_MS;
		return typedHere || !this.deps.shared() ? quiet : Math.max(quiet, this.deps.otherDeviceWaitMs());
	}
}
