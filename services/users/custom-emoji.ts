// The organization's custom emoji, as GET /realm/emoji and POST /register's realm_emoji show
// them (by ID). Adding custom emoji needs an uploaded image, and the server keeps no uploaded
// files, so every organization has none.
export function customEmoji(): Record<string, never> {
	return {};
}
