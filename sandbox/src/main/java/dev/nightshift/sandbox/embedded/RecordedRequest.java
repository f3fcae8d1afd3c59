package dev.nightshift.sandbox.embedded;

import java.time.Instant;
import java.util.Objects;
import java.util.Set;

/**
 * One request the embedded cluster answered, as tests of the agent assert on it ("no node drained twice").
 *
 * @param sequence    position in the log, from 1, in the order the cluster handled the requests
 * @param time        when the cluster handled it
 * @param method      HTTP method, upper case
 * @param path        path with its query, as sent (for example {@code /api/v1/nodes?labelSelector=a%3Db})
 * @param contentType the request's {@code Content-Type}, empty when none (tells a merge patch from a JSON patch)
 * @param body        the body text of a POST, PUT or PATCH; empty for other methods
 * @param status      the HTTP status answered; 101 for a watch upgraded to a WebSocket
 * @param userAgent   the request's {@code User-Agent}, empty when none: which client asked, e.g. the agent's own
 *                    (a client built with {@code ConfigBuilder.withUserAgent}) rather than a test's
 */
public record RecordedRequest(long sequence, Instant time, String method, String path, String contentType, String body,
        int status, String userAgent) {

    private static final Set<String> WRITES = Set.of("POST", "PUT", "PATCH", "DELETE");

    public RecordedRequest {
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(contentType, "contentType");
        Objects.requireNonNull(body, "body");
        Objects.requireNonNull(userAgent, "userAgent");
    }

    /** The path without its query, for comparing against a resource's URL. */
    public String resourcePath() {
        int query = path.indexOf('?');
        return query < 0 ? path : path.substring(0, query);
    }

    /** The query without the {@code ?}, empty when there is none. */
    public String query() {
        int query = path.indexOf('?');
        return query < 0 ? "" : path.substring(query + 1);
    }

    /** Whether the request asked to change something (POST, PUT, PATCH, DELETE), whatever the answer. */
    public boolean isWrite() {
        return WRITES.contains(method);
    }

    /** Whether the cluster accepted it (a 2xx answer, or a watch that was opened). */
    public boolean succeeded() {
        return status == 101 || (status >= 200 && status < 300);
    }

    @Override
    public String toString() {
        return sequence + " " + method + " " + path + " -> " + status + (body.isEmpty() ? "" : " " + body);
    }
}
