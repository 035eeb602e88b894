// A message's text in a push notification (Zulip's get_mobile_push_content and truncate_content),
// from HTML as this server renders it: emoji as characters, images as their alt text, quotes as
// "> " lines or "[…]" beside the sender's own words, ordered lists numbered, spoilers hidden.
import { renderMarkdown } from "../../shared/markdown/render";
import { mobilePushContent, truncateContent } from "../../services/notifications/push/push-content";

const text = (markdown: string) => mobilePushContent(renderMarkdown(markdown), "http://chat.test");

test("emoji, images, entities", () => {
	expect(text("a :thumbs_up: b")).toBe("a 👍 b");
	expect(text("![a cat](http://x/y.png)")).toBe("a cat");
	expect(text("x & <b>y</b>")).toBe("x & <b>y</b>");
	expect(mobilePushContent('<p><span class="emoji emoji-1f1fa-1f1f8">:us:</span></p>', "http://chat.test")).toBe("🇺🇸");
	// A realm emoji is an image: its alt text.
	expect(mobilePushContent('<p><img alt=":party:" class="emoji" src="/e/1.png" title="party"></p>', "http://chat.test")).toBe(":party:");
});

test("quotes: alone they are shown, beside the sender's words they collapse to […]", () => {
	expect(text("> only quote")).toBe("> only quote\n");
	expect(text("> quoted\n> two\n\nmine")).toBe("[…]mine");
	const reply = mobilePushContent(
		'<p><span class="user-mention silent" data-user-id="5">Bob</span> <a href="http://chat.test/#narrow/channel/1-general/topic/x/near/12">said</a>:</p>\n<blockquote>\n<p>old</p>\n</blockquote>\n<p>reply</p>',
		"http://chat.test",
	);
	// The "said" line goes with its text after it; the quote goes, its text after it stays (lxml replace and drop_tree).
	expect(reply).toBe("[…]\nreply");
	// A link to another server's message is not a "said" line.
	const elsewhere = mobilePushContent('<p><span class="user-mention">Bob</span> <a href="https://other.example/#narrow/near/12">said</a>:</p>\n<p>reply</p>', "http://chat.test");
	expect(elsewhere).toBe("Bob said:\nreply");
});

test("ordered lists are numbered from their start, nested ones indented; spoilers show their header", () => {
	expect(text("3. c\n4. d")).toBe("3. c\n4. d");
	expect(text("1. one\n2. two\n   1. inner")).toBe("1. one\n2. two\n\n  1. inner");
	expect(text("```spoiler Title\nhidden\n```\nafter")).toBe("Title (…)\nafter");
	expect(text("```spoiler\nhidden\n```")).toBe("(…)\n");
});

test("truncation at 200 characters (code points), with an ellipsis", () => {
	expect(truncateContent("x".repeat(200))).toEqual({ content: "x".repeat(200), truncated: false });
	expect(truncateContent("x".repeat(201))).toEqual({ content: "x".repeat(200) + "…", truncated: true });
	expect(truncateContent("😀".repeat(201))).toEqual({ content: "😀".repeat(200) + "…", truncated: true });
});
