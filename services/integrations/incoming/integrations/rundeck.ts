// Rundeck (zerver/webhooks/rundeck/view.py): job executions starting, running long, succeeding or
// failing, in the job's topic.
import { posts, UnsupportedEvent, type Integration, type WebhookRequest } from "../integration";

function handle(req: WebhookRequest) {
	const p = req.payload();
	const execution = p.at("execution");
	const job = execution.at("job");
	const status = execution.at("status").str();
	let state: [string, string];
	if (status === "failed") state = ["has failed", "cross_mark"];
	else if (status === "succeeded") state = ["has succeeded", "check"];
	else if (status === "running") state = p.at("trigger").str() === "avgduration" ? ["is running long", "time_ticking"] : ["has started", "running"];
	else if (status === "scheduled") state = ["has started", "running"];
	// Zulip fails on any other status; here it is an event it does not support.
	else throw new UnsupportedEvent(status);
	const name = job.at("name").str();
	const content = `[${name}](${job.at("permalink").str()}) execution [#${execution.at("id").int()}](${execution.at("href").str()}) for ${execution.at("project").str()} ${state[0]}. :${state[1]}:`;
	return posts({ topic: name, content });
}

export const rundeck: Integration = { name: "rundeck", displayName: "Rundeck", handle };
