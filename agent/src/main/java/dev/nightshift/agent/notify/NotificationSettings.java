package dev.nightshift.agent.notify;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The agent's {@code notifications:} section: where commit statuses and events go. Secrets are never values here, only
 * the files that hold them, read at every request (so that a rotated token is taken without a restart).
 *
 * @param commitStatus where each accepted, refused or invalid commit gets its status; empty: nowhere
 * @param webhooks     generic receivers of the events as JSON, each signed with its own secret
 * @param slack        an incoming webhook that gets a readable message of each chosen event
 * @param announce     how long before a window opens to say what will roll in it ({@code rollout.announced}); empty: never
 * @param statusUrl    the agent's status page, given as the statuses' {@code target_url}; empty: none
 * @param timeout      how long one request may take before it is retried
 * @param queueSize    how many notifications wait per destination; beyond, the oldest is dropped and counted
 */
public record NotificationSettings(Optional<CommitStatusTarget> commitStatus, List<WebhookTarget> webhooks,
                                   Optional<SlackTarget> slack, Optional<Duration> announce, Optional<URI> statusUrl,
                                   Duration timeout, int queueSize) {

    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
    public static final int DEFAULT_QUEUE_SIZE = 100;
    public static final NotificationSettings NONE = new NotificationSettings(Optional.empty(), List.of(), Optional.empty(),
            Optional.empty(), Optional.empty(), DEFAULT_TIMEOUT, DEFAULT_QUEUE_SIZE);

    public NotificationSettings {
        webhooks = List.copyOf(webhooks);
        if (queueSize < 1) {
            throw new IllegalArgumentException("notifications.queueSize must be at least 1");
        }
    }

    /** Whether any destination is configured. */
    public boolean any() {
        return commitStatus.isPresent() || !webhooks.isEmpty() || slack.isPresent();
    }

    /**
     * {@code notifications.commitStatus.<forge>}.
     *
     * @param repository {@code owner/name} for GitHub and Gitea; the project's id or URL-encoded path for GitLab
     * @param tokenFile  the API token's file (GitHub and Gitea: {@code Authorization: token …}; GitLab: {@code PRIVATE-TOKEN})
     */
    public record CommitStatusTarget(Forge forge, URI apiUrl, String repository, Path tokenFile) {
    }

    /** {@code notifications.webhooks[]}: the events chosen ({@code [all]} for every one), signed with the secret in {@code secretFile}. */
    public record WebhookTarget(URI url, Path secretFile, Set<EventType> events) {

        public WebhookTarget {
            events = Set.copyOf(events);
        }
    }

    /** {@code notifications.slack}: the incoming webhook's URL is itself the secret, so only its file is named. */
    public record SlackTarget(Path webhookUrlFile, Set<EventType> events) {

        public SlackTarget {
            events = Set.copyOf(events);
        }
    }
}
