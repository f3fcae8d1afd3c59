package dev.nightshift.agent.http;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;

/**
 * {@code POST /hooks/git}: an authentic call triggers a poll at once (202); anything else is 401
 * and logged without its payload.
 */
public final class GitWebhookHandler implements HttpHandler {

    private static final Logger LOG = LoggerFactory.getLogger(GitWebhookHandler.class);
    /** Push payloads are a few KiB; more is not a Git host. */
    static final int MAX_BODY_BYTES = 1024 * 1024;

    private final WebhookVerifier verifier;
    private final Runnable triggerPoll;

    /** @param triggerPoll asks for a poll soon; must not block (the poll runs elsewhere) */
    public GitWebhookHandler(WebhookVerifier verifier, Runnable triggerPoll) {
        this.verifier = verifier;
        this.triggerPoll = triggerPoll;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!"POST".equals(exchange.getRequestMethod())) {
                exchange.getResponseHeaders().add("Allow", "POST");
                respond(exchange, 405, "use POST\n");
                return;
            }
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readNBytes(MAX_BODY_BYTES + 1);
            }
            if (body.length > MAX_BODY_BYTES) {
                respond(exchange, 413, "payload too large\n");
                return;
            }
            Optional<String> rejection = verifier.rejection(
                    Optional.ofNullable(exchange.getRequestHeaders().getFirst(WebhookVerifier.GITHUB_SIGNATURE)),
                    Optional.ofNullable(exchange.getRequestHeaders().getFirst(WebhookVerifier.GITLAB_TOKEN)), body);
            if (rejection.isPresent()) {
                LOG.warn("rejected Git webhook from {}: {}", exchange.getRemoteAddress().getAddress().getHostAddress(), rejection.get());
                respond(exchange, 401, "unauthorized\n");
                return;
            }
            triggerPoll.run();
            respond(exchange, 202, "poll triggered\n");
        }
    }

    private static void respond(HttpExchange exchange, int status, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }
}
