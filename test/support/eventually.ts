// Waiting for something a request set off in the background (an event, a job's end): `probe` is
// asked again until it answers a value. The deadline only bounds a hang; nothing is timed.
export async function eventually<T>(probe: () => Promise<T | undefined | null | false>, what: string, timeoutMs = 60_000, everyMs = 50): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const found = await probe();
		if (found !== undefined && found !== null && found !== false) return found;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, everyMs));
	}
}
