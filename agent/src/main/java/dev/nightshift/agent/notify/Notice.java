package dev.nightshift.agent.notify;

/** What a destination delivers: an event, or a commit's status. */
public sealed interface Notice permits Notice.Event, Notice.Status {

    String commit();

    /** What is remembered as delivered for the commit: the event's key, or {@link #STATUS} for the status. */
    String key();

    String STATUS = "status";

    record Event(NotificationEvent event) implements Notice {

        @Override
        public String commit() {
            return event.commit();
        }

        @Override
        public String key() {
            return event.key();
        }
    }

    record Status(CommitStatus status) implements Notice {

        @Override
        public String commit() {
            return status.commit();
        }

        @Override
        public String key() {
            return STATUS;
        }
    }
}
