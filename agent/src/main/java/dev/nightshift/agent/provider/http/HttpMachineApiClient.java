package dev.nightshift.agent.provider.http;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.random.RandomGenerator;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.nightshift.agent.fence.Fence;
import dev.nightshift.agent.fence.FencedException;
import dev.nightshift.agent.git.CaFile;

/**
 * The machine API over HTTP, with the JDK's {@link HttpClient}.
 *
 * <p>Every request carries {@code Authorization: Bearer <token>}, the token read from its file
 * each time. A 4xx other than 429 is thrown at once; 429, 5xx, a timeout or a lost connection is
 * repeated, with the same body and the same {@code Idempotency-Key}, after the wait the server
 * asks for with {@code Retry-After} or else the {@link RetryPolicy}'s backoff; after the last
 * attempt it is thrown as {@linkplain MachineApiException#retryable() retryable}. An answer that
 * is not what the API says (malformed JSON, an unknown state, a missing field) is thrown at once,
 * never repeated: repeating would not change it, and acting on it could move a machine wrongly.
 *
 * <p>The token is never logged and never in a message; neither is a request's or an answer's body.
 * Redirects are not followed (the token must not go to another host), and HTTP/1.1 is used, as
 * every adapter's server speaks it. The token goes over plain {@code http://} only to a loopback
 * address ({@link MachineApiEndpoint#tokenInClear}). An answer is read up to {@link #MAX_ANSWER_BYTES}
 * ({@link #MAX_LISTING_BYTES} for a listing); a larger one fails the call, unread and not repeated.
 */
public final class HttpMachineApiClient implements MachineApi {

    private static final Logger LOG = LoggerFactory.getLogger(HttpMachineApiClient.class);

    private static final String JSON = "application/json";
    private static final String MERGE_PATCH = "application/merge-patch+json";
    private static final String USER_AGENT = "nightshift/"
            + Optional.ofNullable(HttpMachineApiClient.class.getPackage().getImplementationVersion()).orElse("development");
    /** Enough of a non-JSON error answer (an HTML page from a proxy) to say what answered. */
    private static final int ERROR_BODY_CHARS = 200;
    /**
     * The most one answer may hold: a machine is a few KiB of JSON. A server (or whatever stands in
     * its place) that sends more is not answering as the API says, and must not fill the agent's heap.
     */
    public static final long MAX_ANSWER_BYTES = 1L << 20;
    /** The most a listing may hold: a pool's machines, at a few KiB each, thousands of them. */
    public static final long MAX_LISTING_BYTES = 16L << 20;

    private final String base;
    private final Path tokenFile;
    private final Duration timeout;
    private final RetryPolicy retry;
    private final RandomGenerator random;
    private final Sleeper sleeper;
    private final Clock clock;
    private final HttpClient http;
    private final Fence fence;

    /**
     * @param random for the backoff's jitter; seeded in tests, so that the waits are known
     * @param sleeper waits between attempts ({@link Sleeper#REAL} in production)
     * @param clock   reads {@code Retry-After} dates
     * @throws IllegalArgumentException naming the CA file, when it is not a PEM file of certificates
     */
    public HttpMachineApiClient(MachineApiEndpoint endpoint, RetryPolicy retry, RandomGenerator random, Sleeper sleeper, Clock clock) {
        this(endpoint, retry, random, sleeper, clock, Fence.open());
    }

    /**
     * @param fence asked before every write and every retry of one: once it falls (the lease not renewed in time), no
     *              request is sent, and a call retrying stops at its next attempt with a {@link FencedException}
     */
    public HttpMachineApiClient(MachineApiEndpoint endpoint, RetryPolicy retry, RandomGenerator random, Sleeper sleeper, Clock clock,
                                Fence fence) {
        this.fence = Objects.requireNonNull(fence, "fence");
        String url = endpoint.url().toString();
        this.base = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        this.tokenFile = endpoint.tokenFile();
        this.timeout = endpoint.timeout();
        this.retry = Objects.requireNonNull(retry, "retry");
        this.random = Objects.requireNonNull(random, "random");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
        this.clock = Objects.requireNonNull(clock, "clock");
        HttpClient.Builder builder = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(timeout);
        endpoint.caFile().ifPresent(ca -> builder.sslContext(trusting(ca)));
        this.http = builder.build();
    }

    /** With the default retry policy, real waits and the system clock. */
    public static HttpMachineApiClient of(MachineApiEndpoint endpoint) {
        return of(endpoint, Fence.open());
    }

    /** With the default retry policy, real waits and the system clock, fenced. */
    public static HttpMachineApiClient of(MachineApiEndpoint endpoint, Fence fence) {
        return new HttpMachineApiClient(endpoint, RetryPolicy.DEFAULT, RandomGenerator.getDefault(), Sleeper.REAL, Clock.systemUTC(), fence);
    }

    @Override
    public List<ApiMachine> list(String pool) {
        return call(Call.of("GET", "/v1/pools/" + segment(pool) + "/machines", Set.of(200)).upTo(MAX_LISTING_BYTES),
                answer -> MachineApiJson.readMachineList(answer.body()));
    }

    @Override
    public ApiMachine create(String pool, String idempotencyKey, MachineRequest request) {
        return call(Call.of("POST", "/v1/pools/" + segment(pool) + "/machines", Set.of(201, 200))
                .withBody(JSON, MachineApiJson.machineRequest(request)).withKey(idempotencyKey), answer -> MachineApiJson.readMachine(answer.body()));
    }

    @Override
    public ApiMachine replace(String id, String idempotencyKey, MachineRequest request) {
        return call(Call.of("POST", "/v1/machines/" + segment(id) + "/replace", Set.of(202))
                .withBody(JSON, MachineApiJson.machineRequest(request)).withKey(idempotencyKey), answer -> MachineApiJson.readMachine(answer.body()));
    }

    @Override
    public boolean delete(String id) {
        return call(Call.of("DELETE", "/v1/machines/" + segment(id), Set.of(202, 404)), answer -> answer.statusCode() == 202);
    }

    @Override
    public void update(String id, String idempotencyKey, UpdateRequest request) {
        call(Call.of("POST", "/v1/machines/" + segment(id) + "/update", Set.of(202))
                .withBody(JSON, MachineApiJson.updateRequest(request)).withKey(idempotencyKey), answer -> null);
    }

    @Override
    public ApiMachine patchAnnotations(String id, Map<String, String> annotations) {
        return call(Call.of("PATCH", "/v1/machines/" + segment(id), Set.of(200))
                .withBody(MERGE_PATCH, MachineApiJson.annotationsPatch(annotations)), answer -> MachineApiJson.readMachine(answer.body()));
    }

    /** One API call: what is sent (the same on every attempt), which statuses answer it, and how large the answer may be. */
    private record Call(String method, String path, Set<Integer> expected, String contentType, String body, String key,
                        long maxAnswerBytes) {

        static Call of(String method, String path, Set<Integer> expected) {
            return new Call(method, path, expected, null, null, null, MAX_ANSWER_BYTES);
        }

        Call withBody(String type, String json) {
            return new Call(method, path, expected, type, json, key, maxAnswerBytes);
        }

        Call withKey(String idempotencyKey) {
            return new Call(method, path, expected, contentType, body, Objects.requireNonNull(idempotencyKey, "idempotencyKey"),
                    maxAnswerBytes);
        }

        Call upTo(long bytes) {
            return new Call(method, path, expected, contentType, body, key, bytes);
        }
    }

    /**
     * Why an attempt failed in a way the next one may not.
     *
     * @param status the answer's status, 0 when none came
     */
    private record Failure(int status, String what, Throwable cause, Optional<Duration> retryAfter) {

        static Failure noAnswer(String what, Throwable cause) {
            return new Failure(0, what, cause, Optional.empty());
        }
    }

    /** Thrown by one attempt that may succeed when repeated; never leaves this class. */
    private static final class Repeatable extends Exception {
        private static final long serialVersionUID = 1L;
        private final transient Failure failure;

        Repeatable(Failure failure) {
            super(failure.what(), null, false, false);
            this.failure = failure;
        }
    }

    private <T> T call(Call call, Function<HttpResponse<String>, T> read) {
        URI uri = URI.create(base + call.path());
        String at = call.method() + " " + uri;
        Failure last = null;
        for (int attempt = 1; attempt <= retry.maxAttempts(); attempt++) {
            if (!call.method().equals("GET")) {
                // Every attempt, not only the first: a write retrying past the lease's renew deadline stops here.
                fence.check(at);
            }
            try {
                return attempt(call, uri, at, read);
            } catch (Repeatable e) {
                last = e.failure;
                waitBeforeNext(at, attempt, last);
            }
        }
        throw new MachineApiException(at + ": gave up after " + retry.maxAttempts() + " attempts; the last: " + last.what(),
                last.status(), true, last.cause());
    }

    /** One attempt: its result, a {@link MachineApiException} that repeating cannot help, or {@link Repeatable}. */
    private <T> T attempt(Call call, URI uri, String at, Function<HttpResponse<String>, T> read) throws Repeatable {
        String token = token(at);
        HttpResponse<String> answer;
        try {
            answer = exchange(request(call, uri, token), call.maxAnswerBytes());
        } catch (CappedBody.TooLarge e) {
            // Repeating would bring the same flood.
            throw new MachineApiException(at + ": the answer is larger than " + bytes(e.max()) + "; refused, unread", 0, false, e);
        } catch (HttpTimeoutException e) {
            throw new Repeatable(Failure.noAnswer((e instanceof HttpConnectTimeoutException ? "no connection" : "no complete answer")
                    + " within " + timeout.toMillis() + " ms", e));
        } catch (SSLHandshakeException e) {
            if (untrustedCertificate(e)) {
                // Repeating cannot make the certificate trusted: say what to do instead.
                throw new MachineApiException(at + ": the server's certificate is not trusted (" + e.getMessage()
                        + "); give the CA that signed it as the provider's caFile", 0, false, e);
            }
            throw new Repeatable(Failure.noAnswer(describe(e), e));
        } catch (IOException e) {
            throw new Repeatable(Failure.noAnswer(describe(e), e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MachineApiException(at + ": interrupted", 0, true, e);
        }
        int status = answer.statusCode();
        if (call.expected().contains(status)) {
            try {
                return read.apply(answer);
            } catch (MachineApiJson.MalformedJson e) {
                throw new MachineApiException(at + ": " + status + " answer not as the machine API says: " + scrub(e.getMessage(), token),
                        status, false, e);
            }
        }
        String message = status + " " + scrub(errorMessage(answer), token);
        if (status == 401 || status == 403) {
            throw new MachineApiException(at + ": " + message + " (the token in " + tokenFile + " was refused)", status, false);
        }
        if (status == 429 || status >= 500) {
            throw new Repeatable(new Failure(status, message, null,
                    answer.headers().firstValue("Retry-After").flatMap(header -> RetryAfter.parse(header, clock.instant()))));
        }
        String expected = status < 400 ? " (expected " + expectedStatuses(call) + ")" : "";
        throw new MachineApiException(at + ": " + message + expected, status, false);
    }

    /**
     * Sends the request and reads the whole answer within the timeout. The JDK's request timeout
     * only covers the answer's headers: a server that sends them and then stalls in the body would
     * hold the agent forever without the deadline here.
     */
    private HttpResponse<String> exchange(HttpRequest request, long maxBytes) throws IOException, InterruptedException {
        CompletableFuture<HttpResponse<String>> answer = http.sendAsync(request, info -> new CappedBody(maxBytes));
        try {
            return answer.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            answer.cancel(true);
            throw new HttpTimeoutException("no complete answer within " + timeout);
        } catch (InterruptedException e) {
            answer.cancel(true);
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
                if (t instanceof CappedBody.TooLarge tooLarge) {
                    throw tooLarge;
                }
            }
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IOException(cause);
        }
    }

    private HttpRequest request(Call call, URI uri, String token) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri)
                .timeout(timeout)
                .header("Authorization", "Bearer " + token)
                .header("Accept", JSON)
                .header("User-Agent", USER_AGENT);
        if (call.key() != null) {
            request.header("Idempotency-Key", call.key());
        }
        if (call.body() == null) {
            request.method(call.method(), HttpRequest.BodyPublishers.noBody());
        } else {
            request.header("Content-Type", call.contentType())
                    .method(call.method(), HttpRequest.BodyPublishers.ofString(call.body(), StandardCharsets.UTF_8));
        }
        return request.build();
    }

    /** Logs the failed attempt and waits, unless it was the last one. */
    private void waitBeforeNext(String at, int attempt, Failure failure) {
        if (attempt >= retry.maxAttempts()) {
            return;
        }
        Duration wait = failure.retryAfter().map(retry::capped).orElseGet(() -> retry.backoff(attempt, random));
        LOG.warn("{}: attempt {} of {} failed: {}; trying again in {} ms{}", at, attempt, retry.maxAttempts(), failure.what(),
                wait.toMillis(), failure.retryAfter().isPresent() ? " (Retry-After)" : "");
        try {
            sleeper.sleep(wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MachineApiException(at + ": interrupted while waiting to try again after: " + failure.what(), 0, true, e);
        }
    }

    private String token(String at) {
        String token;
        try {
            token = Files.readString(tokenFile, StandardCharsets.UTF_8).strip();
        } catch (NoSuchFileException e) {
            throw new MachineApiException(at + ": token file " + tokenFile + ": no such file", 0, false, null);
        } catch (IOException e) {
            throw new MachineApiException(at + ": token file " + tokenFile + " cannot be read: " + e.getClass().getSimpleName(), 0, false, null);
        }
        if (token.isEmpty()) {
            throw new MachineApiException(at + ": token file " + tokenFile + " is empty", 0, false);
        }
        if (!token.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            throw new MachineApiException(at + ": token file " + tokenFile + ": the token holds white space, control or non-ASCII "
                    + "characters, which cannot go in an Authorization header", 0, false);
        }
        return token;
    }

    /** The error's {@code message}, or the start of a body that is not an error document. */
    private static String errorMessage(HttpResponse<String> answer) {
        String body = answer.body() == null ? "" : answer.body();
        return MachineApiJson.errorMessage(body).orElseGet(() -> {
            String oneLine = body.strip().replaceAll("\\s+", " ");
            if (oneLine.isEmpty()) {
                return "(no message)";
            }
            return oneLine.length() <= ERROR_BODY_CHARS ? oneLine : oneLine.substring(0, ERROR_BODY_CHARS) + "…";
        });
    }

    /** A server that echoes the request back must not put the token in our messages. */
    private static String scrub(String text, String token) {
        return text.replace(token, "<token>");
    }

    /** 1 MiB, 16 MiB, or so many bytes. */
    private static String bytes(long n) {
        return n % (1L << 20) == 0 ? (n >> 20) + " MiB" : n + " bytes";
    }

    private static String expectedStatuses(Call call) {
        return call.expected().stream().sorted().map(String::valueOf).reduce((a, b) -> a + " or " + b).orElse("");
    }

    private static String describe(IOException e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getClass().getSimpleName() + ": " + e.getMessage();
    }

    private static boolean untrustedCertificate(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof CertificateException || t instanceof java.security.cert.CertPathValidatorException) {
                return true;
            }
        }
        return false;
    }

    private static SSLContext trusting(Path caFile) {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, CaFile.trustManagers(caFile), null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK cannot build a TLS context trusting " + caFile + ": " + e.getMessage(), e);
        }
    }

    /** A path segment, percent-encoded except for RFC 3986's unreserved characters. */
    static String segment(String value) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("a pool name or machine id must not be empty");
        }
        if (value.equals(".") || value.equals("..")) {
            return value.equals(".") ? "%2E" : "%2E%2E"; // not "this" or "the parent" path segment
        }
        StringBuilder out = new StringBuilder();
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
                out.append(c);
            } else {
                out.append('%').append(String.format("%02X", b & 0xff));
            }
        }
        return out.toString();
    }

    /**
     * An answer's body as UTF-8 text, up to a number of bytes. Past it, the rest is not read (the
     * connection is dropped) and the body fails with {@link TooLarge}: the JDK's own handlers read
     * everything a server sends into memory.
     */
    private static final class CappedBody implements HttpResponse.BodySubscriber<String> {

        /** The answer was larger than allowed; not worth repeating. */
        static final class TooLarge extends IOException {
            private static final long serialVersionUID = 1L;
            private final long max;

            TooLarge(long max) {
                super("the answer is larger than " + max + " bytes");
                this.max = max;
            }

            long max() {
                return max;
            }
        }

        private final long max;
        private final HttpResponse.BodySubscriber<String> text = HttpResponse.BodySubscribers.ofString(StandardCharsets.UTF_8);
        private final CompletableFuture<String> body = new CompletableFuture<>();
        private Flow.Subscription subscription;
        private long received;
        private boolean over;

        CappedBody(long max) {
            this.max = max;
            text.getBody().whenComplete((value, error) -> {
                if (error != null) {
                    body.completeExceptionally(error);
                } else {
                    body.complete(value);
                }
            });
        }

        @Override
        public CompletionStage<String> getBody() {
            return body;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            text.onSubscribe(s);
        }

        @Override
        public void onNext(List<ByteBuffer> items) {
            if (over) {
                return;
            }
            for (ByteBuffer item : items) {
                received += item.remaining();
            }
            if (received > max) {
                over = true;
                subscription.cancel();
                body.completeExceptionally(new TooLarge(max));
                return;
            }
            text.onNext(items);
        }

        @Override
        public void onError(Throwable error) {
            if (!over) {
                text.onError(error);
            }
        }

        @Override
        public void onComplete() {
            if (!over) {
                text.onComplete();
            }
        }
    }
}
