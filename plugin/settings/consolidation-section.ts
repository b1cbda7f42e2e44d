// Settings → Consolidation: when new memories are combined into insights.

import { toggleRow } from "./choice-field";
import { numberRow } from "./number-field";
import type { SettingsForm } from "./settings-form";
import type { SettingSection } from "./setting-rows";

export function consolidationSection(form: SettingsForm): SettingSection {
	return {
		heading: "Consolidation",
		rows: [
			numberRow(form, "consolidationThreshold", "Threshold", "Insights are made once this many new memories have gathered."),
			numberRow(form, "consolidationBatchSize", "Batch size", "How many memories one consolidation looks at together."),
			toggleRow(form, "dailyConsolidation", "Daily run", "Also consolidate once a day, whatever the number of new memories."),
		],
	};
}
