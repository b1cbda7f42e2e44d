// Settings → Conversations: where the ask panel's conversations are saved as notes, whether
// every conversation is, and whether saved ones are remembered.

import { toggleRow } from "./choice-field";
import { type SettingsForm, addCoreCheckedField } from "./settings-form";
import type { SettingSection } from "./setting-rows";

export function conversationsSection(form: SettingsForm): SettingSection {
	return {
		heading: "Conversations",
		rows: [
			{
				name: "Conversation folder",
				desc: "Where \"Save as note\" puts the ask panel's conversations, relative to the vault.",
				render: (setting) =>
					addCoreCheckedField(setting, form, "conversationFolder", { text: form.current.conversationFolder, placeholder: "Memory conversations" }),
			},
			toggleRow(form, "autoSaveConversations", "Save every conversation", "Each conversation is saved as a note as it goes, not only when you choose \"Save as note\"."),
			toggleRow(
				form,
				"rememberConversations",
				"Remember saved conversations",
				"Off: notes in the conversation folder are not remembered, so no answer becomes a memory of itself. On: they are remembered like other notes.",
			),
		],
	};
}
