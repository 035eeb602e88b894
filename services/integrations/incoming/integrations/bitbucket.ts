// Bitbucket's old POST service (zerver/webhooks/bitbucket/view.py): the payload is JSON in the
// `payload` parameter, the bot authenticates with HTTP basic authentication, and channel and
// topic may arrive URL-encoded twice. A push without commits is a force push.
import { posts, nothing, type Integration, type WebhookRequest } from "../integration";
import * as git from "../toolkit/git";

function handle(req: WebhookRequest) {
	const p = req.payload();
	const repository = p.at("repository");
	const user = () => p.get("user", "Someone").str();
	const url = p.at("canon_url").str() + repository.at("absolute_url").str();
	const list = p.at("commits").list();
	const commits = list.map((c) => ({
		name: c.has("author") ? c.at("author").str() : user(),
		sha: c.at("raw_node").str(),
		message: c.at("message").str(),
		url: `${url}commits/${c.at("raw_node").str()}`,
	}));
	if (!commits.length) return posts({ topic: repository.at("name").str(), content: `${user()} [force pushed](${url}).` });
	const branch = list[list.length - 1].at("branch").str();
	// Zulip matches this integration's `branches` as a substring.
	const branches = req.param("branches");
	if (branches !== undefined && !branches.includes(branch)) return nothing();
	return posts({ topic: git.topicWithBranch(repository.at("name").str(), branch), content: git.pushCommitsMessage({ user: user(), compareUrl: null, branch, commits }) });
}

export const bitbucket: Integration = { name: "bitbucket", displayName: "Bitbucket", unquoteUrlParameters: true, handle };
