// Opens one of the plugin's views (or finds the open one) and brings it to the front.

import type { View, Workspace } from "obsidian";

/** Where a new view goes: the right sidebar, or a tab of the main area. */
export type ViewPlace = "right" | "tab";

export async function revealView(workspace: Workspace, type: string, place: ViewPlace): Promise<View | null> {
	let leaf = workspace.getLeavesOfType(type)[0] ?? null;
	if (leaf === null) {
		leaf = place === "right" ? workspace.getRightLeaf(false) : workspace.getLeaf("tab");
		if (leaf === null) return null;
		await leaf.setViewState({ type, active: true });
	}
	await workspace.revealLeaf(leaf);
	return leaf.view;
}
