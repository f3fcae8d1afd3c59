package dev.nightshift.agent.notify;

/**
 * The readable Slack message of an event: its sentence, after the cluster and the commit's short hash, in Slack's
 * {@code mrkdwn}. Built from the same event the webhooks get, so the two never tell different stories.
 */
public final class SlackText {

    private SlackText() {
    }

    public static String of(NotificationEvent e) {
        String commit = e.commit().length() > 7 ? e.commit().substring(0, 7) : e.commit();
        return icon(e.type()) + " *" + e.cluster() + "* `" + commit + "` " + e.type().wireName() + ": " + e.message();
    }

    private static String icon(EventType type) {
        return switch (type) {
            case ROLLOUT_ANNOUNCED -> ":calendar:";
            case ROLLOUT_STARTED, POOL_STARTED -> ":arrow_forward:";
            case POOL_PROGRESS -> ":hourglass_flowing_sand:";
            case POOL_COMPLETED, ROLLOUT_COMPLETED -> ":white_check_mark:";
            case POOL_BLOCKED -> ":construction:";
            case POOL_HALTED -> ":octagonal_sign:";
            case POOL_FAILED, SPEC_INVALID, COMMIT_REFUSED -> ":x:";
            case WINDOW_CLOSED_WITH_WORK_LEFT -> ":warning:";
        };
    }
}
