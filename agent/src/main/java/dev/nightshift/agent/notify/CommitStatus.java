package dev.nightshift.agent.notify;

/**
 * A commit status for one cluster ({@code context: nightshift/<cluster>}).
 *
 * @param description at most {@link #MAX_DESCRIPTION} characters, as GitHub takes
 */
public record CommitStatus(String cluster, String commit, CommitState state, String description) {

    /** GitHub refuses longer descriptions; GitLab and Gitea take them, but a status line shows no more. */
    public static final int MAX_DESCRIPTION = 140;

    public CommitStatus {
        if (description.length() > MAX_DESCRIPTION) {
            description = description.substring(0, MAX_DESCRIPTION - 1) + "…";
        }
    }

    public String context() {
        return "nightshift/" + cluster;
    }
}
