// XML bodies read as Zulip reads them (defusedxml's ElementTree): an element's children by tag and
// its text before its first child. Entity declarations are refused, as defusedxml refuses them.
import { XMLParser, XMLValidator } from "fast-xml-parser";

type Node = Record<string, unknown>;

const parser = new XMLParser({ preserveOrder: true, parseTagValue: false, trimValues: false, htmlEntities: true, ignoreDeclaration: true, ignorePiTags: true });

export class XmlElement {
	constructor(
		readonly tag: string,
		private readonly children: Node[],
	) {}

	/** ElementTree's find(tag): the first child element so named. */
	find(tag: string): XmlElement | null {
		for (const child of this.children) if (Object.hasOwn(child, tag)) return new XmlElement(tag, child[tag] as Node[]);
		return null;
	}

	/** ElementTree's .text: the text before the first child element, null when there is none. */
	get text(): string | null {
		let text: string | null = null;
		for (const child of this.children) {
			if (!Object.hasOwn(child, "#text")) break;
			text = (text ?? "") + String(child["#text"]);
		}
		return text;
	}
}

/** The document's root element, or null for a body that is not well-formed XML (or declares entities). */
export function parseXml(body: string): XmlElement | null {
	if (body.includes("<!ENTITY") || XMLValidator.validate(body) !== true) return null;
	let nodes: Node[];
	try {
		nodes = parser.parse(body) as Node[];
	} catch {
		return null;
	}
	const roots = nodes.filter((n) => !Object.hasOwn(n, "#text"));
	if (roots.length !== 1) return null;
	const tag = Object.keys(roots[0]).find((k) => k !== ":@")!;
	return new XmlElement(tag, roots[0][tag] as Node[]);
}
