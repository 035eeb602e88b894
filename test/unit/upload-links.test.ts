// Which uploads a rendered message links (shared/markdown/upload-links.ts), as Zulip's Markdown
// processor collects potential_attachment_path_ids: links on this server under /user_uploads/.
import { renderContent } from "../../shared/markdown/render";
import { MAX_LINKED_UPLOADS, uploadPathIds } from "../../shared/markdown/upload-links";

const SITE = "https://chat.example.com";
const linked = (content: string) => uploadPathIds(renderContent(content).html, SITE);

test("relative links, links with the server's own host (whatever the scheme), and bare URLs of it; each once, in order", () => {
	expect(linked("[a](/user_uploads/2/ab/xyz/a.txt) and [b](https://chat.example.com/user_uploads/2/cd/uvw/b.pdf) and https://chat.example.com/user_uploads/2/ef/rst/c.png [http](http://chat.example.com/user_uploads/2/gh/opq/d.txt) [again](/user_uploads/2/ab/xyz/a.txt)")).toEqual([
		"2/ab/xyz/a.txt",
		"2/cd/uvw/b.pdf",
		"2/ef/rst/c.png",
		"2/gh/opq/d.txt",
	]);
});

test("another site's /user_uploads/ (another port included), other paths of this one, and text that is no link claim nothing", () => {
	expect(linked("[x](https://elsewhere.example/user_uploads/2/ab/xyz/a.txt) [y](/user_avatars/2/a.png) [z](https://chat.example.com:8443/user_uploads/2/ab/xyz/a.txt) /user_uploads/2/ab/xyz/a.txt `[c](/user_uploads/2/ab/xyz/code.txt)`")).toEqual([]);
});

test("the path is decoded (a name with other scripts), without query or fragment; &amp; is read as &", () => {
	expect(linked("[r](/user_uploads/2/ab/xyz/отчёт.pdf?download=1&x=2#top)")).toEqual(["2/ab/xyz/отчёт.pdf"]);
	expect(linked("[r](/user_uploads/2/ab/xyz/a%26b.txt)")).toEqual(["2/ab/xyz/a&b.txt"]);
	// Percent-encoding that does not decode is kept as written.
	expect(uploadPathIds('<a href="/user_uploads/2/ab/xyz/%E0%A4%A.txt">x</a>', SITE)).toEqual(["2/ab/xyz/%E0%A4%A.txt"]);
	expect(uploadPathIds('<a href="/user_uploads/">x</a> <a href="http://[bad">y</a>', SITE)).toEqual([]);
});

test("a message linking ever so many uploads names at most MAX_LINKED_UPLOADS", () => {
	const html = Array.from({ length: MAX_LINKED_UPLOADS + 5 }, (_, i) => `<a href="/user_uploads/2/ab/x${i}/f.txt">f</a>`).join(" ");
	expect(uploadPathIds(html, SITE)).toHaveLength(MAX_LINKED_UPLOADS);
});
