// Settings → Spending: daily and monthly limits on what the model may cost (off by default).

import { numberRow } from "./number-field";
import type { SettingsForm } from "./settings-form";
import type { SettingSection } from "./setting-rows";

export function spendingSection(form: SettingsForm): SettingSection {
	const reached = "When it is reached, remembering pauses until the limit allows more, and a question that would pass it asks first. 0 means no limit.";
	return {
		heading: "Spending",
		rows: [
			numberRow(form, "dailyLimitUsd", "Daily limit (US dollars)", `The most the model may cost in a day, as estimated from its prices. ${reached}`),
			numberRow(form, "monthlyLimitUsd", "Monthly limit (US dollars)", `The same for a calendar month. ${reached}`),
		],
	};
}
