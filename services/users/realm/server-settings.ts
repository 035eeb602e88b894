// GET /server_settings: what a client needs to know before it logs in (Zulip's fields; password
// and email authentication only), and the largest file an upload may be.
//
// Decision: `max_file_upload_size_mib` is here as well as in POST /register (where Zulip has it),
// so that a client can check a file before it logs in; Zulip's clients ignore a field they do not
// know, so the extra one changes nothing for them.
import { renderMarkdown } from "../../../shared/markdown/render";
import { ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from "../../../shared/version";
import type { RealmDoc } from "../models/realm";
import { realmImage } from "./realm-images";

/** `pushEnabled`: Zulip's push_notifications_configured (docs/push.md). */
export function serverSettings(realm: RealmDoc, maxFileUploadSizeMib: number, pushEnabled: boolean) {
		return {
		authentication_methods: {
			password: true,
			dev: false,
			email: true,
			ldap: false,
			remoteuser: false,
			github: false,
			azuread: false,
			gitlab: false,
			apple: false,
			google: false,
			saml: false,
			"openid connect": false,
		},
		external_authentication_methods: [],
		zulip_feature_level: ZULIP_FEATURE_LEVEL,
		zulip_version: ZULIP_VERSION,
		zulip_merge_base: ZULIP_MERGE_BASE,
		push_notifications_enabled: pushEnabled,
		is_incompatible: false,
		email_auth_enabled: true,
		require_email_format_usernames: true,
		realm_uri: realm.url,
		realm_url: realm.url,
		realm_name: realm.name,
		realm_icon: realmImage(realm, "icon").url,
		realm_description: renderMarkdown(realm.description),
		realm_web_public_access_enabled: false,
		max_file_upload_size_mib: maxFileUploadSizeMib,
	};
}
