// Linkifier patterns: Zulip's are RE2 expressions with Python's named groups, `(?P<name>…)`.
// JavaScript's engine backtracks, so a pattern is accepted only in a subset that cannot take
// exponential time: no backreferences, no lookaround, and no quantified group that itself holds
// a quantifier or an alternation (the shapes of catastrophic backtracking, e.g. `(a+)+`,
// `(a|a)*`). It is then compiled as a JavaScript expression with named groups `(?<name>…)`.

export class PatternError extends Error {}

/** The JavaScript source of a pattern, or a PatternError saying why it is refused. */
export function translatePattern(pattern: string): string {
	let out = "";
	// Per open group: whether it holds a quantifier or an alternation so far.
	const stack: Array<{ risky: boolean }> = [{ risky: false }];
	let lastGroupRisky = false;
	let inClass = false;
	for (let i = 0; i < pattern.length; i++) {
		const c = pattern[i];
		const prevWasGroupEnd = lastGroupRisky;
		lastGroupRisky = false;
		if (c === "\\") {
			const n = pattern[i + 1];
			if (n === undefined) throw new PatternError("trailing \\");
			if (!inClass && /[1-9k]/.test(n)) throw new PatternError("backreferences are not supported");
			out += c + n;
			i++;
			continue;
		}
		if (inClass) {
			if (c === "]") inClass = false;
			out += c;
			continue;
		}
		if (c === "[") {
			inClass = true;
			out += c;
			continue;
		}
		if (c === "(") {
			const rest = pattern.slice(i);
			if (/^\(\?(=|!|<=|<!)/.test(rest)) throw new PatternError("lookaround is not supported");
			if (rest.startsWith("(?P=")) throw new PatternError("backreferences are not supported");
			const named = /^\(\?P<(\w+)>/.exec(rest);
			if (named) {
				out += `(?<${named[1]}>`;
				i += named[0].length - 1;
			} else if (rest.startsWith("(?:")) {
				out += "(?:";
				i += 2;
			} else if (rest.startsWith("(?")) {
				throw new PatternError("this group syntax is not supported");
			} else out += c;
			stack.push({ risky: false });
			continue;
		}
		if (c === ")") {
			if (stack.length === 1) throw new PatternError("unexpected )");
			const group = stack.pop()!;
			lastGroupRisky = group.risky;
			// A group's risk is its enclosing group's risk too.
			if (group.risky) stack[stack.length - 1].risky = true;
			out += c;
			continue;
		}
		if (c === "|") stack[stack.length - 1].risky = true;
		if (c === "*" || c === "+" || c === "?" || c === "{") {
			const bounded = c === "?" || (c === "{" && /^\{\d+\}/.test(pattern.slice(i)));
			// `?` after a quantifier makes it lazy; it is no new quantifier.
			if (!(c === "?" && /[*+?}]/.test(pattern[i - 1] ?? ""))) {
				if (prevWasGroupEnd && !bounded) throw new PatternError("nested quantifiers are not supported");
				stack[stack.length - 1].risky = true;
			}
		}
		out += c;
	}
	if (inClass) throw new PatternError("missing ]");
	if (stack.length !== 1) throw new PatternError("missing )");
	try {
		new RegExp(out, "u");
	} catch (err) {
		throw new PatternError((err as Error).message.replace(/^Invalid regular expression: /, ""));
	}
	return out;
}

/** The named groups of a (translated) pattern. */
export function groupNames(source: string): Set<string> {
	return new Set([...source.matchAll(/\(\?<(\w+)>/g)].map((m) => m[1]));
}
