package dev.nightshift.agent.sandbox.embedded;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Every request the embedded cluster answered, in the order it handled them. Appends happen while the
 * dispatcher holds its lock, so the order here is the order in which the requests changed the store.
 */
final class RequestLog {

    private final List<RecordedRequest> requests = new ArrayList<>();
    private long sequence;

    synchronized void add(Instant time, String method, String path, String contentType, String body, int status,
            String userAgent) {
        requests.add(new RecordedRequest(++sequence, time, method, path, contentType, body, status, userAgent));
    }

    /** A copy: later requests do not change it. */
    synchronized List<RecordedRequest> snapshot() {
        return List.copyOf(requests);
    }

    /** Forgets what was logged; sequence numbers keep counting so that entries never repeat a number. */
    synchronized void clear() {
        requests.clear();
    }
}
