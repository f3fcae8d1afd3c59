package dev.nightshift.agent.notify;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.nightshift.agent.git.Secret;

/**
 * Commit statuses through a forge's documented API, one status per cluster ({@code context: nightshift/<cluster>}):
 * <ul>
 * <li>GitHub: {@code POST {apiUrl}/repos/{owner}/{repo}/statuses/{sha}} with {@code state}, {@code target_url},
 * {@code description}, {@code context}; {@code Authorization: Bearer <token>}.</li>
 * <li>GitLab: {@code POST {apiUrl}/projects/:id/statuses/:sha} with {@code state}, {@code name}, {@code description},
 * {@code target_url}; {@code PRIVATE-TOKEN: <token>}.</li>
 * <li>Gitea: {@code POST {apiUrl}/repos/{owner}/{repo}/statuses/{sha}} with {@code state}, {@code target_url},
 * {@code description}, {@code context}; {@code Authorization: token <token>}.</li>
 * </ul>
 * The token is read from its file at every request and goes nowhere but its header.
 */
final class ForgeStatuses implements Sender {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final NotificationSettings.CommitStatusTarget target;
    private final Optional<URI> statusUrl;
    private final JsonPost post;

    ForgeStatuses(NotificationSettings.CommitStatusTarget target, Optional<URI> statusUrl, JsonPost post) {
        this.target = target;
        this.statusUrl = statusUrl;
        this.post = post;
    }

    /** One forge at most: {@value #DESTINATION} whichever it is, so that the counter's series do not depend on the forge. */
    static final String DESTINATION = "commit-status";

    @Override
    public String destination() {
        return DESTINATION;
    }

    Forge forge() {
        return target.forge();
    }

    @Override
    public boolean wants(Notice notice) {
        return notice instanceof Notice.Status;
    }

    /**
     * GitLab refuses a status in the state it already has ("Cannot transition status via :run from :running"), so there
     * only a change of its word is sent: the progress descriptions ("2/4 pools current") do not reach GitLab.
     */
    @Override
    public boolean worthSending(CommitStatus last, CommitStatus next) {
        if (target.forge() == Forge.GITLAB) {
            return !Forge.GITLAB.state(last.state()).equals(Forge.GITLAB.state(next.state()));
        }
        return !last.equals(next);
    }

    @Override
    public Outcome send(Notice notice) {
        CommitStatus status = ((Notice.Status) notice).status();
        Secret token;
        try {
            token = Secret.fromFile(target.tokenFile());
        } catch (IOException e) {
            return new Outcome.Failed(target.forge().label() + ": cannot read the token file " + target.tokenFile());
        }
        return post.post(target.forge().label(), url(status.commit()), headers(token), body(status));
    }

    URI url(String commit) {
        String base = target.apiUrl().toString().replaceAll("/+$", "");
        return URI.create(switch (target.forge()) {
            case GITHUB, GITEA -> base + "/repos/" + target.repository() + "/statuses/" + commit;
            // A project's path ("group/project") is one path segment, its slash encoded, as GitLab's docs say.
            case GITLAB -> base + "/projects/" + URLEncoder.encode(target.repository(), StandardCharsets.UTF_8) + "/statuses/" + commit;
        });
    }

    private Map<String, String> headers(Secret token) {
        Map<String, String> h = new LinkedHashMap<>();
        switch (target.forge()) {
            case GITHUB -> {
                h.put("Authorization", "Bearer " + token.reveal());
                h.put("Accept", "application/vnd.github+json");
                h.put("X-GitHub-Api-Version", "2022-11-28");
            }
            case GITLAB -> h.put("PRIVATE-TOKEN", token.reveal());
            case GITEA -> h.put("Authorization", "token " + token.reveal());
        }
        return h;
    }

    byte[] body(CommitStatus status) {
        ObjectNode o = JSON.createObjectNode();
        o.put("state", target.forge().state(status.state()));
        statusUrl.ifPresent(u -> o.put("target_url", u.toString()));
        o.put("description", status.description());
        o.put(target.forge() == Forge.GITLAB ? "name" : "context", status.context());
        return o.toString().getBytes(StandardCharsets.UTF_8);
    }
}
