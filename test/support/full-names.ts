// Zulip's check_full_name, case by case: every request that sets a full name (PATCH /settings,
// PATCH /users/{id|email}, POST /users, bots) must answer these alike.

/** Refused, with Zulip's message. */
export const BAD_FULL_NAMES: Array<[string, string]> = [
	["", "Name too short!"],
	["A", "Name too short!"],
	["  B \n", "Name too short!"],
	["x".repeat(101), "Name too long!"],
	["😀".repeat(101), "Name too long!"],
	["Bad *name*", "Invalid characters in name!"],
	["Back`tick", "Invalid characters in name!"],
	["Back\\slash", "Invalid characters in name!"],
	["Greater > than", "Invalid characters in name!"],
	['Say "hi"', "Invalid characters in name!"],
	["me@home", "Invalid characters in name!"],
	["Bell\u0007 Ringer", "Invalid characters in name!"],
	["Non\ufdd0character", "Invalid characters in name!"],
	["Plane\u{10ffff} Sixteen", "Invalid characters in name!"],
	["Alice|12", "Invalid format!"],
	["Bob|7\n", "Invalid format!"],
	["Eve|١٢", "Invalid format!"],
];

/** Accepted: [as sent, as stored]. */
export const GOOD_FULL_NAMES: Array<[string, string]> = [
	["Al", "Al"],
	["  Spaced Out \t", "Spaced Out"],
	["x".repeat(100), "x".repeat(100)],
	["😀".repeat(100), "😀".repeat(100)],
	["Pipe|Name", "Pipe|Name"],
	["Ends with|", "Ends with|"],
	["Agent 007", "Agent 007"],
	["Zoë Ünicode-Name", "Zoë Ünicode-Name"],
];
