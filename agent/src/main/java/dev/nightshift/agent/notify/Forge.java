package dev.nightshift.agent.notify;

import java.util.Locale;

/**
 * The forges whose commit statuses the agent sets, each with its documented API: the path of a status and how a
 * state is spelled.
 */
public enum Forge {
    /** {@code POST /repos/{owner}/{repo}/statuses/{sha}}: error, failure, pending, success. */
    GITHUB,
    /** {@code POST /projects/:id/statuses/:sha}: pending, running, success, failed, canceled. */
    GITLAB,
    /** {@code POST /repos/{owner}/{repo}/statuses/{sha}}: pending, success, error, failure, warning. */
    GITEA;

    /** The forge of a label ({@code github}, …); empty for anything else. */
    public static java.util.Optional<Forge> valueOfLabel(String label) {
        return java.util.Arrays.stream(values()).filter(f -> f.label().equals(label)).findFirst();
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The forge's word for a state. None has "superseded": GitLab's {@code canceled} says it, Gitea's {@code warning}
     * is the nearest, and GitHub has only {@code error} left (not {@code failure}: nothing failed). GitLab has no
     * error either: an invalid spec is {@code failed} there.
     */
    public String state(CommitState state) {
        return switch (this) {
            case GITHUB -> switch (state) {
                case PENDING -> "pending";
                case SUCCESS -> "success";
                case FAILURE -> "failure";
                case ERROR, SUPERSEDED -> "error";
            };
            case GITLAB -> switch (state) {
                case PENDING -> "running";
                case SUCCESS -> "success";
                case FAILURE, ERROR -> "failed";
                case SUPERSEDED -> "canceled";
            };
            case GITEA -> switch (state) {
                case PENDING -> "pending";
                case SUCCESS -> "success";
                case FAILURE -> "failure";
                case ERROR -> "error";
                case SUPERSEDED -> "warning";
            };
        };
    }
}
