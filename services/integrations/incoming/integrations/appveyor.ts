// AppVeyor (zerver/webhooks/appveyor/view.py): a build completed or failed, in the project's topic.
import { posts, type Integration, type WebhookRequest } from "../integration";

function handle(req: WebhookRequest) {
	const data = req.json().at("eventData");
	const project = data.at("projectName").str();
	const content =
		`[Build ${project} ${data.at("buildVersion").str()} ${data.at("status").str()}](${data.at("buildUrl").str()}):\n` +
		`* **Commit**: [${data.at("commitId").str()}: ${data.at("commitMessage").str()}](${data.at("commitUrl").str()}) by ${data.at("committerName").str()}\n` +
		`* **Started**: ${data.at("started").str()}\n* **Finished**: ${data.at("finished").str()}`;
	return posts({ topic: project, content });
}

export const appveyor: Integration = { name: "appveyor", displayName: "AppVeyor", handle };
