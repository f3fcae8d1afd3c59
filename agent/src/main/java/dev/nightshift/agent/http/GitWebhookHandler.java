package dev.nightshift.agent.http;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Semaphore;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.sun.net.httpserver.HttpExchange;

/**
 * {@code POST /hooks/git}: an authentic call triggers a poll at once (202); anything else is 401
 * and logged without its payload.
 *
 * <p>The body is read within {@link #DEFAULT_BODY_DEADLINE} (else 408) and up to {@link #MAX_BODY_BYTES}
 * (else 413), and at most {@link #CONCURRENT_BODIES} bodies are read at once (else 503): a client
 * that sends the headers and then trickles or stalls the body holds one thread for the deadline at
 * most, and never more than a few of the server's threads. After a 408, 413 or 503 the connection
 * is closed without reading the rest of the body, which may never come.
 */
public final class GitWebhookHandler implements AgentHttpServer.BodyReader {

    private static final Logger LOG = LoggerFactory.getLogger(GitWebhookHandler.class);
    /** Push payloads are a few KiB; more is not a Git host. */
    static final int MAX_BODY_BYTES = 1024 * 1024;
    /** A Git host sends its payload at once; a body still coming after this is not one. */
    public static final Duration DEFAULT_BODY_DEADLINE = Duration.ofSeconds(10);
    /** Pushes are rare: more bodies at once than this are not pushes, and they must not take every thread. */
    static final int CONCURRENT_BODIES = 4;
    /** After the body, verifying and answering take milliseconds; this only bounds a client that does not read the answer. */
    private static final Duration ANSWER_DEADLINE = Duration.ofSeconds(10);

    private final WebhookVerifier verifier;
    private final Runnable triggerPoll;
    private final Duration bodyDeadline;
    private final Semaphore bodies = new Semaphore(CONCURRENT_BODIES);

    /** @param triggerPoll asks for a poll soon; must not block (the poll runs elsewhere) */
    public GitWebhookHandler(WebhookVerifier verifier, Runnable triggerPoll) {
        this(verifier, triggerPoll, DEFAULT_BODY_DEADLINE);
    }

    /** @param bodyDeadline how long the body may take to arrive, from the end of the headers */
    public GitWebhookHandler(WebhookVerifier verifier, Runnable triggerPoll, Duration bodyDeadline) {
        if (bodyDeadline.isNegative() || bodyDeadline.isZero()) {
            throw new IllegalArgumentException("the webhook's body deadline must be positive");
        }
        this.verifier = verifier;
        this.triggerPoll = triggerPoll;
        this.bodyDeadline = bodyDeadline;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        // Outside AgentHttpServer (which begins one per exchange), the handler keeps a deadline of its own.
        Optional<ExchangeDeadline> given = ExchangeDeadline.current();
        ExchangeDeadline deadline = given.orElseGet(() -> ExchangeDeadline.begin(bodyDeadline));
        try {
            handle(exchange, deadline);
        } finally {
            if (given.isEmpty()) {
                deadline.end();
            }
        }
    }

    private void handle(HttpExchange exchange, ExchangeDeadline deadline) throws IOException {
        String from = exchange.getRemoteAddress().getAddress().getHostAddress();
        if (!"POST".equals(exchange.getRequestMethod())) {
            exchange.getResponseHeaders().add("Allow", "POST");
            if (Answers.hasBody(exchange)) {
                Answers.hangUp(exchange, 405, "use POST\n");
            }
            try (exchange) {
                respond(exchange, 405, "use POST\n");
            }
            return;
        }
        long declared = Answers.declaredLength(exchange);
        if (declared > MAX_BODY_BYTES) {
            LOG.warn("Git webhook from {}: body of {} bytes refused (at most {}): 413", from, declared, MAX_BODY_BYTES);
            Answers.hangUp(exchange, 413, "payload too large\n");
        }
        if (!bodies.tryAcquire()) {
            LOG.warn("Git webhook from {}: {} bodies are being read already: 503", from, CONCURRENT_BODIES);
            exchange.getResponseHeaders().set("Retry-After", Long.toString(bodyDeadline.toSeconds() + 1));
            Answers.hangUp(exchange, 503, "busy: try again later\n");
        }
        byte[] body;
        try {
            body = readBody(exchange, deadline, from);
        } finally {
            bodies.release();
        }
        if (body.length > MAX_BODY_BYTES) {
            LOG.warn("Git webhook from {}: body over {} bytes refused: 413", from, MAX_BODY_BYTES);
            Answers.hangUp(exchange, 413, "payload too large\n");
        }
        try (exchange) {
            Optional<String> rejection = verifier.rejection(
                    Optional.ofNullable(exchange.getRequestHeaders().getFirst(WebhookVerifier.GITHUB_SIGNATURE)),
                    Optional.ofNullable(exchange.getRequestHeaders().getFirst(WebhookVerifier.GITLAB_TOKEN)), body);
            if (rejection.isPresent()) {
                LOG.warn("rejected Git webhook from {}: {}", from, rejection.get());
                respond(exchange, 401, "unauthorized\n");
                return;
            }
            triggerPoll.run();
            respond(exchange, 202, "poll triggered\n");
        }
    }

    /**
     * Up to {@link #MAX_BODY_BYTES} + 1 bytes of the body, within the body deadline. Past it, the
     * deadline's alarm answers 408 and interrupts this thread, which closes the connection.
     */
    private byte[] readBody(HttpExchange exchange, ExchangeDeadline deadline, String from) throws IOException {
        if (!deadline.rearm(bodyDeadline, () -> timedOut(exchange, from))) {
            throw new IOException("the exchange's deadline passed before its body was read");
        }
        byte[] body;
        try {
            InputStream in = exchange.getRequestBody();
            body = in.readNBytes(MAX_BODY_BYTES + 1);
        } catch (IOException e) {
            if (deadline.expired()) {
                throw new IOException("webhook body not received within " + bodyDeadline, e);
            }
            throw e;
        }
        if (!deadline.rearm(ANSWER_DEADLINE, () -> { })) {
            // The alarm won the race: it answered 408 and the connection is closing.
            throw new IOException("webhook body not received within " + bodyDeadline);
        }
        return body;
    }

    /** Run by the deadline's alarm while the body is still being read: the client hears why before the connection closes. */
    private void timedOut(HttpExchange exchange, String from) {
        LOG.warn("Git webhook from {}: body not received within {} s: 408, connection closed", from, bodyDeadline.toSeconds());
        try {
            exchange.getResponseHeaders().set("Connection", "close");
            Answers.send(exchange, 408, "request body not received in time\n");
        } catch (IOException | RuntimeException e) {
            // The client went away: closing the connection is all that is left.
        }
    }

    private static void respond(HttpExchange exchange, int status, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }
}
