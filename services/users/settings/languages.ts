// The interface languages offered (default_language must be one of these codes).
export const LANGUAGES: ReadonlyArray<{ code: string; name: string }> = [
	{ code: "en", name: "English" },
	{ code: "en_GB", name: "British English" },
	{ code: "de", name: "Deutsch" },
	{ code: "es", name: "Español" },
	{ code: "fr", name: "Français" },
	{ code: "it", name: "Italiano" },
	{ code: "nl", name: "Nederlands" },
	{ code: "pl", name: "Polski" },
	{ code: "pt", name: "Português" },
	{ code: "pt_BR", name: "Português (Brasil)" },
	{ code: "ru", name: "Русский" },
	{ code: "uk", name: "Українська" },
	{ code: "tr", name: "Türkçe" },
	{ code: "ja", name: "日本語" },
	{ code: "ko", name: "한국어" },
	{ code: "zh-hans", name: "简体中文" },
	{ code: "zh-hant", name: "繁體中文" },
	{ code: "hi", name: "हिन्दी" },
	{ code: "ar", name: "العربية" },
	{ code: "id", name: "Bahasa Indonesia" },
];

export const LANGUAGE_CODES = new Set(LANGUAGES.map((l) => l.code));
