// A service's actions from its action groups (a function of what the service wired, answering
// actions by name), refusing an action name that two groups define.
export function spreadActionGroups<D>(service: string, groups: Array<(deps: D) => Record<string, unknown>>, deps: D): Record<string, unknown> {
	const actions: Record<string, unknown> = {};
	for (const group of groups) {
		for (const [name, action] of Object.entries(group(deps))) {
			if (Object.hasOwn(actions, name)) throw new Error(`${service}.${name} is defined by two action groups`);
			actions[name] = action;
		}
	}
	return actions;
}
