package dev.nightshift.agent.notify;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * One JSON {@code POST} with a deadline, judged as {@link Outcome}s. Reasons carry the destination's name and the HTTP
 * status only: a URL may be the secret (Slack's) and a response may echo a token, so neither is ever repeated.
 */
final class JsonPost {

    private final HttpClient http;
    private final Duration timeout;

    JsonPost(HttpClient http, Duration timeout) {
        this.http = http;
        this.timeout = timeout;
    }

    /** A client that connects within {@code timeout} and never follows redirects (a token must not go elsewhere). */
    static JsonPost of(Duration timeout) {
        return new JsonPost(HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NEVER).build(),
                timeout);
    }

    Outcome post(String destination, URI url, Map<String, String> headers, byte[] body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(url).timeout(timeout)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .header("User-Agent", "nightshift")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach(request::setHeader);
        try {
            HttpResponse<Void> response = http.send(request.build(), HttpResponse.BodyHandlers.discarding());
            int code = response.statusCode();
            if (code >= 200 && code < 300) {
                return Outcome.DELIVERED;
            }
            String why = destination + " answered HTTP " + code;
            if (code == 429 || code >= 500) {
                return new Outcome.Retry(why, retryAfter(response));
            }
            return new Outcome.Failed(why);
        } catch (HttpTimeoutException e) {
            return new Outcome.Retry(destination + " did not answer within " + timeout.toMillis() + " ms", Optional.empty());
        } catch (IOException e) {
            return new Outcome.Retry(destination + " could not be reached: " + e.getClass().getSimpleName(), Optional.empty());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Outcome.Retry(destination + ": interrupted", Optional.empty());
        }
    }

    /** A 429's or 503's {@code Retry-After} in seconds; a date is left to the back-off. */
    private static Optional<Duration> retryAfter(HttpResponse<?> response) {
        return response.headers().firstValue("Retry-After").filter(v -> v.matches("\\d{1,5}"))
                .map(v -> Duration.ofSeconds(Long.parseLong(v)));
    }
}
