// One progress line per phase on a terminal (count, total and rate, redrawn in place), a final line
// per phase; nothing when stderr is not a terminal or CI is set, so logs and tests stay quiet.
// import-zulip and export-zulip both draw with it; a phase whose total is not known ahead (the
// export's) shows its count and rate only.

export class Progress {
	private readonly live: boolean;
	private phase = "";
	private total: number | undefined = 0;
	private done = 0;
	private started = 0;
	private drawn = 0;

	constructor(private readonly out: NodeJS.WriteStream = process.stderr) {
		this.live = !!out.isTTY && !process.env.CI;
	}

	start(phase: string, total?: number): void {
		this.phase = phase;
		this.total = total;
		this.done = 0;
		this.started = performance.now();
		this.drawn = 0;
		this.draw();
	}

	add(n: number): void {
		this.done += n;
		if (performance.now() - this.drawn > 100) this.draw();
	}

	finish(): void {
		this.draw();
		if (this.live) this.out.write("\n");
	}

	private draw(): void {
		if (!this.live) return;
		this.drawn = performance.now();
		const secs = (this.drawn - this.started) / 1000;
		const rate = secs > 0 ? Math.round(this.done / secs) : 0;
		if (this.total === undefined) {
			this.out.write(`\r\x1b[2K${this.phase.padEnd(14)} ${this.done}  ${rate}/s`);
			return;
		}
		const width = 24;
		const filled = this.total ? Math.min(width, Math.round((this.done / this.total) * width)) : width;
		this.out.write(`\r\x1b[2K${this.phase.padEnd(14)} [${"#".repeat(filled)}${".".repeat(width - filled)}] ${this.done}/${this.total}  ${rate}/s`);
	}
}
