// The object `require("obsidian")` returns inside the host: real classes typed against obsidian's API.

import type * as Obsidian from "obsidian";
import { DEFAULT_API_VERSION, requireApiVersionOf } from "./api-version";
import { HostEvents } from "./events";
import type { PluginClasses } from "./plugin-base";
import type { UiClasses } from "./ui";
import { loadNodePdfJs } from "./pdfjs-node";
import { hostRequestUrl } from "./request-url";
import { HostTAbstractFile, HostTFile, HostTFolder } from "./vault";
import type { ViewClasses } from "./views";

/** Obsidian's normalizePath: forward slashes, no doubled, leading or trailing slashes. */
export const normalizePath: typeof Obsidian.normalizePath = (path) => {
	const cleaned = path
		.replace(/\u00a0|\u202f/g, " ")
		.replace(/[\\/]+/g, "/")
		.replace(/^\/+|\/+$/g, "")
		.normalize("NFC");
	return cleaned === "" ? "/" : cleaned;
};

export function createObsidianModule(
	plugin: PluginClasses,
	ui: UiClasses,
	platform: Partial<typeof Obsidian.Platform> = {},
	views?: ViewClasses,
	apiVersion = DEFAULT_API_VERSION,
) {
	return {
		...views,
		apiVersion,
		requireApiVersion: requireApiVersionOf(apiVersion),
		Component: plugin.Component,
		Plugin: plugin.Plugin,
		Events: HostEvents,
		Notice: ui.Notice,
		Setting: ui.Setting,
		TextComponent: ui.TextComponent,
		TextAreaComponent: ui.TextAreaComponent,
		DropdownComponent: ui.DropdownComponent,
		ToggleComponent: ui.ToggleComponent,
		ButtonComponent: ui.ButtonComponent,
		SecretComponent: ui.SecretComponent,
		PluginSettingTab: ui.PluginSettingTab,
		TAbstractFile: HostTAbstractFile,
		TFile: HostTFile,
		TFolder: HostTFolder,
		normalizePath,
		Platform: {
			isDesktop: true,
			isMobile: false,
			isDesktopApp: true,
			isMobileApp: false,
			isIosApp: false,
			isAndroidApp: false,
			isPhone: false,
			isTablet: false,
			isMacOS: false,
			isWin: false,
			isLinux: true,
			isSafari: false,
			resourcePathPrefix: "app://local/",
			...platform,
		},
		requestUrl: hostRequestUrl,
		// Obsidian's pdf.js, here pdfjs-dist's legacy build of the same version (package.json).
		loadPdfJs: loadNodePdfJs,
	};
}

export type ObsidianModule = ReturnType<typeof createObsidianModule>;
