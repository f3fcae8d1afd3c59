package dev.nightshift.agent.notify;

/** One destination's way of delivering: a forge's statuses API, a signed webhook, Slack. Called on its queue's thread only. */
interface Sender {

    /** The destination's name: the {@code destination} label of {@code nightshift_notifications_total} and its key in {@code /status}. */
    String destination();

    /** Whether this destination takes the notice at all (the events it chose; statuses only for a forge). */
    boolean wants(Notice notice);

    /**
     * Whether {@code next} is worth sending after {@code last}, the status last delivered for its commit: a forge may
     * refuse a repeat (GitLab cannot go from running to running).
     */
    default boolean worthSending(CommitStatus last, CommitStatus next) {
        return !last.equals(next);
    }

    Outcome send(Notice notice);
}
