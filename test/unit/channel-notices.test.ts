// The texts of Notification Bot's channel notices (services/channels/notices.ts) where the API
// tests do not reach: Zulip's fallback link for names that break `#**name**`, the web-public
// policy, Python's sort order, and the empty topic for channels that allow only it.
import * as notices from "../../services/channels/notices";

const actor = { user_id: 7, full_name: "Ann" };

test("a name that would break #**name** becomes Zulip's plain link, escaped and hash-encoded", () => {
	expect(notices.channelLink(3, "plain name")).toBe("#**plain name**");
	expect(notices.channelLink(3, "a*b > c")).toBe("[#a&#42;b &gt; c](#narrow/channel/3-a*b-.3E-c)");
	expect(notices.channelLink(12, "R&D (2025). [$$]")).toBe("[#R&amp;D (2025). &#91;&#36;&#36;&#93;](#narrow/channel/12-R.26D-.282025.29.2E-.5B.24.24.5D)");
	expect(notices.channelLink(4, "`x`")).toBe("[#&#96;x&#96;](#narrow/channel/4-.60x.60)");
	expect(notices.newChannelsAnnouncement(actor, [{ id: 1, name: "ok" }, { id: 2, name: "a*b" }])).toBe(
		"@_**Ann|7** created the following channels: #**ok**, [#a&#42;b](#narrow/channel/2-a*b).",
	);
});

test("the access policies by name, web-public first", () => {
	const policy = (invite_only: boolean, history_public_to_subscribers: boolean, is_web_public = false) => notices.policyName({ invite_only, history_public_to_subscribers, is_web_public });
	expect(policy(false, true, true)).toBe("Web-public");
	expect(policy(false, true)).toBe("Public");
	expect(policy(true, true)).toBe("Private, shared history");
	expect(policy(true, false)).toBe("Private, protected history");
	expect(notices.channelCreated(actor, { invite_only: false, history_public_to_subscribers: true, is_web_public: true, description: "d" })).toBe(
		"**Web-public** channel created by @_**Ann|7**. **Description:**\n```` quote\nd\n````",
	);
});

test("channels listed by code point, as Python's sorted()", () => {
	expect(notices.subscribedYou(actor, ["b", "B", "é", "a", "😀", "\uffee"])).toBe(
		"@_**Ann|7** subscribed you to the following channels:\n\n* #**B**\n* #**a**\n* #**b**\n* #**é**\n* #**\uffee**\n* #**😀**\n",
	);
});

test("a channel that allows only the empty topic has its notices there", () => {
	expect(notices.channelEventsTopic({ topics_policy: "empty_topic_only" })).toBe("");
	for (const p of ["inherit", "allow_empty_topic", "disable_empty_topic"]) expect(notices.channelEventsTopic({ topics_policy: p })).toBe("channel events");
});

test("the topics policy labels use the organization's name for the empty topic", () => {
	expect(notices.topicsPolicyChanged(actor, "empty_topic_only", "inherit", "chat")).toBe(
		'@_**Ann|7** changed the "Allow posting to the *general chat* topic?" setting from **Only *chat* topic allowed** to **Automatic**.',
	);
});
