// The route table: every `METHOD /api/v1/path` and the one action that serves it.
//
// Path parameters are written `{name}`; a name ending in `_id` matches digits only, so
// `/users/{user_id}` and `/users/{email}` can both exist. The routes of one path are one pattern, as
// a `rest_path` of Zulip's urls.py, with its methods in Zulip's order (a 405's Allow header); a path
// goes to the first pattern that matches it, whatever the method (router.ts), so where two patterns
// can take the same path they stand in urls.py's order: `/users/me` and `/users/{user_id}` before
// `/users/{email}`, `/users/me/presence` before `/users/{user_id_or_email}/presence`.
export interface Route {
	method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
	path: string;
	action: string;
	/** false for the few endpoints that take no credentials. */
	auth?: boolean;
	/**
	 * The parameter that names the node holding the resource (an event queue ID starts with its
	 * node's ID): the request goes to that node's replica of the action when it is up.
	 */
	owner?: string;
	/**
	 * Administrators only, checked before the parameters are read, as Zulip's
	 * `require_realm_admin` does (the action checks again for callers on the bus).
	 */
	admin?: true;
	/** No guests, checked before the parameters are read, as Zulip's `require_non_guest_user` does. */
	nonGuest?: true;
	/** Bots only ("Must be a bot user"), checked before the parameters are read, as Zulip does. */
	botOnly?: true;
	/** No bots, checked before the parameters are read, as Zulip's `human_users_only` does. */
	humanOnly?: true;
	/**
	 * A file endpoint: its multipart body is streamed into the uploads service (file-upload.ts)
	 * instead of being read as parameters, and the action completes the upload named in
	 * `ctx.meta.upload`. "optional": a multipart body is streamed the same way, its text fields
	 * before the file read as parameters and the file optional (ctx.meta.upload absent without
	 * one); any other body is read as on every route (Zulip's POST and PATCH /bots).
	 */
	file?: true | "optional";
	/** A password login: the user gets Zulip's new-login email (login-notice.ts). */
	login?: true;
}

export const routes: Route[] = [
	{ method: "POST", path: "/fetch_api_key", action: "users.fetchApiKey", auth: false, login: true },
	{ method: "GET", path: "/server_settings", action: "users.serverSettings", auth: false },
	{ method: "POST", path: "/register", action: "api.register" },
	{ method: "GET", path: "/events", action: "events.get", owner: "queue_id" },
	{ method: "DELETE", path: "/events", action: "events.delete", owner: "queue_id" },

	{ method: "GET", path: "/users", action: "users.list" },
	{ method: "POST", path: "/users", action: "users.create" },
	{ method: "GET", path: "/users/me", action: "users.me" },
	{ method: "DELETE", path: "/users/me", action: "users.deactivateMe" },
	{ method: "POST", path: "/users/{user_id}/reactivate", action: "users.reactivate" },
	{ method: "GET", path: "/users/{user_id}", action: "users.get" },
	{ method: "PATCH", path: "/users/{user_id}", action: "users.update" },
	{ method: "DELETE", path: "/users/{user_id}", action: "users.deactivate" },
	{ method: "GET", path: "/users/{email}", action: "users.getByEmail" },
	{ method: "PATCH", path: "/users/{email}", action: "users.updateByEmail" },
	{ method: "POST", path: "/users/me/presence", action: "users.updatePresence" },
	{ method: "POST", path: "/users/me/status", action: "users.updateStatus", humanOnly: true },
	{ method: "GET", path: "/users/{user_id_or_email}/presence", action: "users.userPresence" },
	{ method: "GET", path: "/realm/presence", action: "users.realmPresence" },
	{ method: "GET", path: "/users/{user_id}/status", action: "users.userStatus" },
	{ method: "PATCH", path: "/users/me/profile_data", action: "users.updateMyProfileData" },
	{ method: "DELETE", path: "/users/me/profile_data", action: "users.deleteMyProfileData" },
	{ method: "POST", path: "/users/me/api_key/regenerate", action: "users.regenerateMyKey" },
	{ method: "POST", path: "/users/me/avatar", action: "uploads.uploadAvatar", file: true },
	{ method: "DELETE", path: "/users/me/avatar", action: "users.deleteAvatar" },
	{ method: "GET", path: "/bots", action: "users.listBots", nonGuest: true, humanOnly: true },
	{ method: "POST", path: "/bots", action: "users.createBot", nonGuest: true, humanOnly: true, file: "optional" },
	{ method: "PATCH", path: "/bots/{bot_id}", action: "users.updateBot", nonGuest: true, humanOnly: true, file: "optional" },
	{ method: "DELETE", path: "/bots/{bot_id}", action: "users.deactivateBot" },
	{ method: "POST", path: "/bots/{bot_id}/api_key/regenerate", action: "users.regenerateBotKey", nonGuest: true, humanOnly: true },
	{ method: "POST", path: "/users/me/muted_users/{muted_user_id}", action: "users.muteUser" },
	{ method: "DELETE", path: "/users/me/muted_users/{muted_user_id}", action: "users.unmuteUser" },

	// PATCH /settings/display and /settings/notifications are the older, deprecated names.
	{ method: "PATCH", path: "/settings", action: "users.updateSettings" },
	{ method: "PATCH", path: "/settings/display", action: "users.updateSettings" },
	{ method: "PATCH", path: "/settings/notifications", action: "users.updateSettings" },

	{ method: "GET", path: "/user_groups", action: "users.listGroups" },
	{ method: "POST", path: "/user_groups/create", action: "users.createGroup" },
	{ method: "PATCH", path: "/user_groups/{user_group_id}", action: "users.updateGroup" },
	// Zulip deactivates rather than deletes groups; DELETE is kept for older clients.
	{ method: "DELETE", path: "/user_groups/{user_group_id}", action: "users.deactivateGroup" },
	{ method: "POST", path: "/user_groups/{user_group_id}/deactivate", action: "users.deactivateGroup" },
	{ method: "GET", path: "/user_groups/{user_group_id}/members", action: "users.groupMembers" },
	{ method: "POST", path: "/user_groups/{user_group_id}/members", action: "users.updateGroupMembers" },
	{ method: "GET", path: "/user_groups/{user_group_id}/members/{user_id}", action: "users.isGroupMember" },
	{ method: "POST", path: "/user_groups/{user_group_id}/subgroups", action: "users.updateGroupSubgroups" },
	{ method: "GET", path: "/user_groups/{user_group_id}/subgroups", action: "users.groupSubgroups" },

	{ method: "GET", path: "/users/me/subscriptions", action: "channels.listSubscriptions" },
	{ method: "POST", path: "/users/me/subscriptions", action: "channels.subscribe", nonGuest: true },
	{ method: "DELETE", path: "/users/me/subscriptions", action: "channels.unsubscribe" },
	{ method: "GET", path: "/users/{user_id}/subscriptions/{stream_id}", action: "channels.subscriptionStatus" },
	{ method: "GET", path: "/streams", action: "channels.list" },
	{ method: "GET", path: "/streams/{stream_id}", action: "channels.get" },
	{ method: "PATCH", path: "/streams/{stream_id}", action: "channels.update" },
	{ method: "DELETE", path: "/streams/{stream_id}", action: "channels.archive" },
	{ method: "GET", path: "/streams/{stream_id}/members", action: "channels.members" },
	{ method: "POST", path: "/streams/{stream_id}/delete_topic", action: "messages.deleteTopic", admin: true },
	{ method: "GET", path: "/get_stream_id", action: "channels.getId" },
	{ method: "POST", path: "/users/me/subscriptions/properties", action: "channels.updateProperties" },
	{ method: "GET", path: "/default_streams", action: "channels.listDefaults" },
	{ method: "POST", path: "/default_streams", action: "channels.addDefault", admin: true },
	{ method: "DELETE", path: "/default_streams", action: "channels.removeDefault", admin: true },
	{ method: "GET", path: "/channel_folders", action: "channels.listFolders" },
	{ method: "POST", path: "/channel_folders/create", action: "channels.createFolder", admin: true },
	{ method: "PATCH", path: "/channel_folders/{channel_folder_id}", action: "channels.updateFolder", admin: true },
	{ method: "PATCH", path: "/users/me/subscriptions/muted_topics", action: "channels.muteTopic" },
	{ method: "POST", path: "/user_topics", action: "channels.setTopicVisibility" },

	{ method: "GET", path: "/messages", action: "messages.list" },
	{ method: "POST", path: "/messages", action: "messages.send" },
	{ method: "POST", path: "/messages/render", action: "messages.render" },
	{ method: "GET", path: "/messages/matches_narrow", action: "messages.matchesNarrow" },
	{ method: "GET", path: "/messages/{message_id}", action: "messages.get" },
	{ method: "PATCH", path: "/messages/{message_id}", action: "messages.update" },
	{ method: "DELETE", path: "/messages/{message_id}", action: "messages.delete" },
	{ method: "POST", path: "/typing", action: "messages.typing" },
	{ method: "GET", path: "/messages/{message_id}/history", action: "messages.history" },
	{ method: "GET", path: "/users/me/{stream_id}/topics", action: "messages.topics" },
	{ method: "POST", path: "/messages/flags", action: "messages.updateFlags" },
	{ method: "POST", path: "/messages/flags/narrow", action: "messages.updateFlagsForNarrow" },
	{ method: "POST", path: "/mark_all_as_read", action: "messages.markAllAsRead" },
	{ method: "POST", path: "/mark_stream_as_read", action: "messages.markChannelAsRead" },
	{ method: "POST", path: "/mark_topic_as_read", action: "messages.markTopicAsRead" },
	{ method: "POST", path: "/messages/{message_id}/reactions", action: "messages.addReaction" },
	{ method: "DELETE", path: "/messages/{message_id}/reactions", action: "messages.removeReaction" },
	{ method: "POST", path: "/submessage", action: "messages.addSubmessage" },
	{ method: "GET", path: "/messages/{message_id}/read_receipts", action: "messages.readReceipts" },
	{ method: "POST", path: "/messages/{message_id}/report", action: "moderation.report" },
	{ method: "GET", path: "/scheduled_messages", action: "scheduling.list" },
	{ method: "POST", path: "/scheduled_messages", action: "scheduling.create" },
	{ method: "DELETE", path: "/scheduled_messages/{scheduled_message_id}", action: "scheduling.delete" },
	{ method: "PATCH", path: "/scheduled_messages/{scheduled_message_id}", action: "scheduling.edit" },

	{ method: "GET", path: "/invites", action: "invites.list" },
	{ method: "POST", path: "/invites", action: "invites.create" },
	{ method: "DELETE", path: "/invites/{invite_id}", action: "invites.revoke" },
	{ method: "POST", path: "/invites/{invite_id}/resend", action: "invites.resend" },
	{ method: "POST", path: "/invites/multiuse", action: "invites.createMultiuse" },
	{ method: "DELETE", path: "/invites/multiuse/{invite_id}", action: "invites.revokeMultiuse" },

	{ method: "GET", path: "/drafts", action: "messages.listDrafts" },
	{ method: "POST", path: "/drafts", action: "messages.createDrafts" },
	{ method: "PATCH", path: "/drafts/{draft_id}", action: "messages.editDraft" },
	{ method: "DELETE", path: "/drafts/{draft_id}", action: "messages.deleteDraft" },
	{ method: "GET", path: "/saved_snippets", action: "messages.listSavedSnippets" },
	{ method: "POST", path: "/saved_snippets", action: "messages.createSavedSnippet" },
	{ method: "DELETE", path: "/saved_snippets/{saved_snippet_id}", action: "messages.deleteSavedSnippet" },
	{ method: "PATCH", path: "/saved_snippets/{saved_snippet_id}", action: "messages.editSavedSnippet" },
	{ method: "GET", path: "/users/me/alert_words", action: "messages.alertWords" },
	{ method: "POST", path: "/users/me/alert_words", action: "messages.addAlertWords" },
	{ method: "DELETE", path: "/users/me/alert_words", action: "messages.removeAlertWords" },

	{ method: "PATCH", path: "/realm", action: "users.updateRealm", admin: true },
	{ method: "GET", path: "/realm/emoji", action: "catalog.realmEmoji" },
	{ method: "POST", path: "/realm/emoji/{emoji_name}", action: "uploads.uploadEmoji", file: true, nonGuest: true },
	{ method: "POST", path: "/realm/icon", action: "uploads.uploadRealmIcon", file: true, admin: true },
	{ method: "DELETE", path: "/realm/icon", action: "uploads.deleteRealmIcon", admin: true },
	// `night` may come in the form with the file (Zulip's web app sends it so).
	{ method: "POST", path: "/realm/logo", action: "uploads.uploadRealmLogo", file: "optional", admin: true },
	{ method: "DELETE", path: "/realm/logo", action: "uploads.deleteRealmLogo", admin: true },
	{ method: "DELETE", path: "/realm/emoji/{emoji_name}", action: "catalog.deleteEmoji" },
	{ method: "POST", path: "/user_uploads", action: "uploads.userUpload", file: true },
	{ method: "GET", path: "/user_uploads/{realm_id}/{filename...}", action: "uploads.temporaryUrl" },
	{ method: "GET", path: "/attachments", action: "uploads.listAttachments" },
	{ method: "DELETE", path: "/attachments/{attachment_id}", action: "uploads.removeAttachment" },
	{ method: "POST", path: "/export/realm", action: "uploads.startExport", admin: true },
	{ method: "GET", path: "/export/realm", action: "uploads.listExports", admin: true },
	{ method: "GET", path: "/export/realm/consents", action: "users.exportConsents", admin: true },
	{ method: "DELETE", path: "/export/realm/{export_id}", action: "uploads.deleteExport", admin: true },
	{ method: "POST", path: "/realm/playgrounds", action: "catalog.addPlayground", admin: true },
	{ method: "DELETE", path: "/realm/playgrounds/{playground_id}", action: "catalog.removePlayground", admin: true },
	{ method: "GET", path: "/realm/linkifiers", action: "catalog.listLinkifiers" },
	{ method: "PATCH", path: "/realm/linkifiers", action: "catalog.reorderLinkifiers", admin: true },
	{ method: "POST", path: "/realm/filters", action: "catalog.addLinkifier", admin: true },
	{ method: "DELETE", path: "/realm/filters/{filter_id}", action: "catalog.removeLinkifier", admin: true },
	{ method: "PATCH", path: "/realm/filters/{filter_id}", action: "catalog.updateLinkifier", admin: true },
	{ method: "PUT", path: "/bot_storage", action: "users.updateBotStorage", botOnly: true },
	{ method: "GET", path: "/bot_storage", action: "users.getBotStorage", botOnly: true },
	{ method: "DELETE", path: "/bot_storage", action: "users.removeBotStorage", botOnly: true },
	{ method: "POST", path: "/users/me/apns_device_token", action: "users.addApnsDeviceToken", humanOnly: true },
	{ method: "DELETE", path: "/users/me/apns_device_token", action: "users.removeApnsDeviceToken", humanOnly: true },
	{ method: "POST", path: "/users/me/android_gcm_reg_id", action: "users.addAndroidRegId", humanOnly: true },
	{ method: "DELETE", path: "/users/me/android_gcm_reg_id", action: "users.removeAndroidRegId", humanOnly: true },
	{ method: "POST", path: "/mobile_push/test_notification", action: "notifications.testPushNotification", humanOnly: true },
	{ method: "GET", path: "/navigation_views", action: "users.listNavigationViews" },
	{ method: "POST", path: "/navigation_views", action: "users.addNavigationView" },
	{ method: "PATCH", path: "/navigation_views/{fragment...}", action: "users.updateNavigationView" },
	{ method: "DELETE", path: "/navigation_views/{fragment...}", action: "users.removeNavigationView" },
	{ method: "GET", path: "/realm/profile_fields", action: "users.listProfileFields" },
	{ method: "PATCH", path: "/realm/profile_fields", action: "users.reorderProfileFields", admin: true },
	{ method: "POST", path: "/realm/profile_fields", action: "users.createProfileField", admin: true },
	{ method: "PATCH", path: "/realm/profile_fields/{field_id}", action: "users.updateProfileField", admin: true },
	{ method: "DELETE", path: "/realm/profile_fields/{field_id}", action: "users.deleteProfileField", admin: true },
];

/** Only with BENCH_ROUTES=1: the do-nothing baseline `npm run bench` compares against. */
export const benchRoutes: Route[] = [{ method: "GET", path: "/bench/noop", action: "users.noop", auth: false }];
