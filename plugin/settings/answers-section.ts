// Settings → Answers: how much memory goes into a question, how long answers are, how dates read.

import { dropdownRow, toggleRow } from "./choice-field";
import { numberRow } from "./number-field";
import type { SettingsForm } from "./settings-form";
import type { SettingSection } from "./setting-rows";

export function answersSection(form: SettingsForm): SettingSection {
	return {
		heading: "Answers",
		rows: [
			numberRow(form, "contextBudgetTokens", "Context budget (tokens)", "At most this many tokens of memories, insights and note passages go into one question, and never more than the model's context window holds. More finds more, and costs more: the default keeps a question on Claude Haiku 5.5 under 100K prompt tokens, above which all of its tokens cost five times as much."),
			numberRow(form, "answerMaxTokens", "Answer length (tokens)", "The longest answer the model may write. Before it, the model may spend up to 1,000 more tokens listing the evidence it answers from, which is not shown."),
			dropdownRow(form, "dateOrder", {
				name: "Date order",
				desc: "How dates such as 3/4 in questions and notes are read.",
				options: () => ({ dayMonth: "Day/month (3/4 is 3 April)", monthDay: "Month/day (3/4 is March 4)" }),
			}),
			toggleRow(
				form,
				"secondPass",
				"Second pass",
				"When the memories chosen for a question are not enough, the model may ask once for more (by dates, names or keywords) before answering. Slower, and uses more tokens.",
			),
			dropdownRow(form, "answerThinking", {
				name: "Thinking for answers",
				desc: "How much the model may think before it answers a question, on models that can (Claude 3.7 and later). Thinking is never shown as the answer; its tokens are billed as output and included in each answer's cost. Off is cheapest and suits Haiku.",
				options: () => ({ off: "Off", low: "Low effort", medium: "Medium effort" }),
			}),
			toggleRow(
				form,
				"planQuestions",
				"Plan the search",
				"Before choosing memories, a small model call turns the question into search words, names and dates, so notes worded unlike the question are found (\"outdoorsy\" finds hiking and camping). About 500 tokens in and 60 out a question (about $0.0009 with Claude Haiku 4.5), shown in each answer's cost.",
			),
			toggleRow(
				form,
				"readPassages",
				"Read the notes behind memories",
				"For the memories that best fit a question, the model also reads the passage of the note each came from, as the note is now: amounts, times, lists and who said what, which a memory's summary leaves out. Memories take at most 40% of the context budget and these passages the rest, within the same budget.",
			),
		],
	};
}
