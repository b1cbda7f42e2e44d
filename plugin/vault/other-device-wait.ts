// Paying once when devices share the memory: a note changed on another device arrives here
// through the sync tool, and so, a little later, does that device's memory of it. Such a
// change (one not typed in this device's editor) is read after the usual quiet delay, and
// whatever costs nothing is done at once — but no model call is sent for it until the wait
// for other devices is over; the merge before that work then usually finds the note remembered.
// Reading at once matters: when this device holds the memory the other one waits for (a note
// renamed there arrives here as "deleted, created"), it must not wait too, or both would pay.

/** How soon after typing the editor saves the note (Obsidian saves every 2 s as one types). */
const SAVED_AFTER_TYPING_MS = 10_000;

export interface OtherDeviceWaitDeps {
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
	 * When a change to `path` may be paid for (ms since the epoch), or null for at once. A
	 * change counts as typed here when the editor changed the note just before it; the mark is
	 * used up by that change, so a change the sync tool brings later is the other device's.
	 * Typing into a note that came from another device ends its wait: this device wrote the
	 * version to remember (waiting too would have both devices wait for each other, and both pay).
	 */
	payAfter(path: string): number | null {
		const typedAt = this.typed.get(path);
		this.typed.delete(path);
		const now = this.deps.now();
		const typedHere = typedAt !== undefined && now - typedAt <= SAVED_AFTER_TYPING_MS;
		const wait = this.deps.otherDeviceWaitMs();
		return typedHere || !this.deps.shared() || wait <= 0 ? null : now + wait;
	}
}
