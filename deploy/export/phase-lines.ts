// export-zulip's progress on a terminal: the writer reports each step (a page of users, a message
// file, a stored file...) with its phase; each phase becomes one line of import-zulip's Progress,
// finished when the next phase starts. How many a phase will hold is not known ahead.
import type { ExportStep } from "../../shared/zulip-format/write-export";
import type { Progress } from "../progress";

/** The writer's steps as progress lines, a phase at a time (how many each will hold is not known ahead). */
export function phaseLines(progress: Progress | undefined) {
	let phase = "";
	return {
		step(s: ExportStep): void {
			if (!progress) return;
			if (s.phase !== phase) {
				if (phase) progress.finish();
				phase = s.phase;
				progress.start(phase);
			}
			progress.add(s.count);
		},
		end(): void {
			if (phase) progress?.finish();
		},
	};
}
