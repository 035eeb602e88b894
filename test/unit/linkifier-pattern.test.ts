// The linkifier pattern subset: Python's named groups become JavaScript's; the shapes of
// catastrophic backtracking, backreferences and lookaround are refused.
import { groupNames, PatternError, translatePattern } from "../../shared/linkifier-pattern";

test("accepted patterns translate to JavaScript with their named groups", () => {
	const cases: Array<[string, string]> = [
		["#(?P<id>[0-9]+)", "#(?<id>[0-9]+)"],
		["(?P<org>[a-z]+)/(?P<repo>[a-z]+)#(?P<id>\\d+)", "(?<org>[a-z]+)/(?<repo>[a-z]+)#(?<id>\\d+)"],
		["(?:RT|TKT)-(?P<id>\\d{1,6})", "(?:RT|TKT)-(?<id>\\d{1,6})"],
		["(ab)+(?P<x>[(+*)])", "(ab)+(?<x>[(+*)])"],
		["(a*)?(?P<n>\\d+?)", "(a*)?(?<n>\\d+?)"],
	];
	for (const [pattern, js] of cases) expect(translatePattern(pattern)).toBe(js);
	expect([...groupNames(translatePattern(cases[1][0]))]).toEqual(["org", "repo", "id"]);
});

test("refused patterns say why", () => {
	const cases: Array<[string, string]> = [
		["(a+)+b", "nested quantifiers are not supported"],
		["(?:a|aa)*c", "nested quantifiers are not supported"],
		["((a)*)+", "nested quantifiers are not supported"],
		["(a*){2,}", "nested quantifiers are not supported"],
		["(?P<x>a)\\1", "backreferences are not supported"],
		["(?P<x>a)(?P=x)", "backreferences are not supported"],
		["(?<=a)b", "lookaround is not supported"],
		["a(?!b)", "lookaround is not supported"],
		["(?i)a", "this group syntax is not supported"],
		["(a", "missing )"],
		["a)", "unexpected )"],
		["[a", "missing ]"],
		["a\\", "trailing \\"],
	];
	for (const [pattern, why] of cases) {
		expect(() => translatePattern(pattern)).toThrow(PatternError);
		expect(() => translatePattern(pattern)).toThrow(why);
	}
	expect(() => translatePattern("a{")).toThrow(PatternError);
});
