package dev.nightshift.agent.notify;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One event, as every destination gets it ({@link EventJson} writes it; Slack gets {@link SlackText}'s sentence of it).
 *
 * @param key     what makes it the same event again: the type, its pool and what else tells two apart (a node, a
 *                window's start); an event whose key was delivered for a commit is never sent again for it
 * @param message one readable sentence, as Slack shows it
 * @param data    the type's own fields (documented per type), in the order written; strings, numbers and lists of them
 */
public record NotificationEvent(EventType type, Instant time, String cluster, String commit, Optional<String> pool,
                                String key, String message, Map<String, Object> data) {

    public NotificationEvent {
        data = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(data));
    }

    /** The event's id on the wire: its commit and key, so that a receiver can tell a repeat from a new event. */
    public String id() {
        return Hashes.sha256Hex(cluster + "\n" + commit + "\n" + key).substring(0, 32);
    }
}
