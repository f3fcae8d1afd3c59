package dev.nightshift.agent.notify;

import java.time.Duration;
import java.util.Optional;

/** What one try to deliver gave. Reasons name the destination and the HTTP status, never a URL's secret or a token. */
public sealed interface Outcome permits Outcome.Delivered, Outcome.Retry, Outcome.Failed {

    record Delivered() implements Outcome {
    }

    /** Worth trying again: a timeout, a connection refused, a 5xx or a 429 (with its Retry-After, if it gave one). */
    record Retry(String reason, Optional<Duration> after) implements Outcome {
    }

    /** Not worth trying again: the destination refused the request (4xx) or its secret cannot be read. */
    record Failed(String reason) implements Outcome {
    }

    Outcome DELIVERED = new Delivered();
}
