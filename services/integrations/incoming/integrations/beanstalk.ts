// Beanstalk (zerver/webhooks/beanstalk/view.py): Git pushes (one topic per branch, `branches`
// honoured) and SVN commits, JSON in the `payload` field; the bot authenticates with HTTP basic
// authentication (its email's @ may be written %40).
import { nothing, posts, type Integration, type WebhookRequest } from "../integration";
import * as git from "../toolkit/git";

function handle(req: WebhookRequest) {
	const p = req.jsonParam("payload");
	if (p.has("uri")) {
		if (!git.branchNotifiable(p.at("branch").str(), req.param("branches"))) return nothing();
		const branch = p.at("ref").str().replace(/^refs\/heads\//, "");
		const commits = p
			.at("commits")
			.list()
			.map((c) => ({ name: c.path("author", "name").str(), sha: c.at("id").str(), url: c.at("url").str(), message: c.at("message").str() }));
		const content = git.pushCommitsMessage({ user: p.at("pusher_name").str(), compareUrl: p.path("repository", "url").str(), branch, commits });
		return posts({ topic: git.topicWithBranch(p.path("repository", "name").str(), branch), content });
	}
	const revision = p.at("revision").int();
	const message = p.at("message").str().split("\n")[0];
	return posts({ topic: `svn r${revision}`, content: `${p.at("author_full_name").str()} pushed [revision ${revision}](${p.at("changeset_url").str()}):\n\n> ${message}` });
}

export const beanstalk: Integration = { name: "beanstalk", displayName: "Beanstalk", handle };
