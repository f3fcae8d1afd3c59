package dev.nightshift.sandbox.machineapi;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import dev.nightshift.agent.provider.http.MachineApiException;
import dev.nightshift.agent.provider.http.MachineApiJson;

/**
 * The machine API, version 1 ({@code machine-api/v1.yaml}), served over a {@link MachineApiCloud}
 * on 127.0.0.1 with the JDK's HTTP server: exactly the OpenAPI file's paths, a bearer token (a
 * random one, written to a file only its owner can read), {@code {"message"}} errors (401 without
 * or with a wrong token, 404 for an unknown machine or path, 400 for a malformed body or a missing
 * {@code Idempotency-Key}, 409 for what the machine's state does not allow), and every request in
 * a {@link RequestLog}. A test hook, {@link Holds}, holds chosen answers back.
 */
public final class MachineApiServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MachineApiServer.class);
    private static final Pattern POOL_MACHINES = Pattern.compile("/v1/pools/([^/]+)/machines");
    private static final Pattern MACHINE = Pattern.compile("/v1/machines/([^/]+)");
    private static final Pattern MACHINE_ACTION = Pattern.compile("/v1/machines/([^/]+)/(replace|update)");
    private static final Pattern POOL_NAME = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    private static final int MAX_BODY = 1 << 20;
    private static final String JSON_TYPE = "application/json";

    private final HttpServer server;
    private final ExecutorService threads;
    private final MachineApiCloud cloud;
    private final RequestLog requests;
    private final Holds holds;
    /** Machines whose create's answer is held with {@code unlisted}: left out of listings until it is sent. */
    private final java.util.Set<String> unlisted = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final byte[] token;
    private final Path tokenFile;
    private final Clock clock;
    private final Map<Operation, Integer> counted = new EnumMap<>(Operation.class);
    private final AtomicReference<CountDownLatch> release = new AtomicReference<>(new CountDownLatch(1));

    private MachineApiServer(HttpServer server, ExecutorService threads, MachineApiCloud cloud, RequestLog requests, Holds holds,
                             String token, Path tokenFile, Clock clock) {
        this.server = server;
        this.threads = threads;
        this.cloud = cloud;
        this.requests = requests;
        this.holds = holds;
        this.token = token.getBytes(StandardCharsets.UTF_8);
        this.tokenFile = tokenFile;
        this.clock = clock;
    }

    /**
     * Serves {@code cloud} on a free port of 127.0.0.1 with a new random token, written to
     * {@code tokenFile} (replaced if there; owner-only where the file system has POSIX permissions).
     */
    public static MachineApiServer start(MachineApiCloud cloud, RequestLog requests, Holds holds, Path tokenFile, Clock clock)
            throws IOException {
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        String token = HexFormat.of().formatHex(random);
        writeOwnerOnly(tokenFile, token);
        HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        // Held answers each keep a thread: enough for a few at once besides the agent's calls.
        ExecutorService threads = Executors.newFixedThreadPool(16, r -> {
            Thread t = new Thread(r, "machine-api");
            t.setDaemon(true);
            return t;
        });
        http.setExecutor(threads);
        MachineApiServer server = new MachineApiServer(http, threads, cloud, requests, holds, token, tokenFile, clock);
        http.createContext("/", server::handle);
        http.start();
        return server;
    }

    private static void writeOwnerOnly(Path file, String text) throws IOException {
        Path absolute = file.toAbsolutePath();
        Files.createDirectories(absolute.getParent());
        Files.deleteIfExists(absolute);
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            Files.createFile(absolute, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        }
        Files.writeString(absolute, text, StandardCharsets.UTF_8);
    }

    /** The base URL, {@code http://127.0.0.1:PORT} (paths start with {@code /v1}). */
    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** The file holding the bearer token. */
    public Path tokenFile() {
        return tokenFile;
    }

    public MachineApiCloud cloud() {
        return cloud;
    }

    public RequestLog requests() {
        return requests;
    }

    /** Sends every answer held now. */
    public void release() {
        release.getAndSet(new CountDownLatch(1)).countDown();
    }

    @Override
    public void close() {
        release();
        server.stop(0);
        threads.shutdownNow();
    }

    // ---- requests ------------------------------------------------------------------------------

    /** What to answer, and what the request log says about it. */
    private record Answer(int status, String body, Operation operation, int ordinal, String machine) {

        static Answer error(int status, String message, Operation operation, int ordinal) {
            return new Answer(status, MachineApiJson.error(message), operation, ordinal, null);
        }
    }

    private void handle(HttpExchange exchange) {
        String method = exchange.getRequestMethod();
        String path = exchange.getRequestURI().getRawPath();
        String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
        try (exchange) {
            Answer answer;
            try {
                answer = answer(exchange, method, path, key);
            } catch (RuntimeException e) {
                LOG.warn("machine API {} {} failed", method, path, e);
                answer = Answer.error(500, "the sandbox's machine API failed: " + e, null, 0);
            }
            Optional<Duration> hold = answer.operation() == null || answer.ordinal() == 0 ? Optional.empty()
                    : holds.of(answer.operation(), answer.ordinal());
            if (answer.operation() != null && answer.ordinal() != 0 && holds.loses(answer.operation(), answer.ordinal())) {
                log(method, path, key, answer, RequestLog.Phase.LOST_ANSWER);
                answer = Answer.error(503, "the answer was lost on the way (the sandbox's test hook --machine-api-hold)", null, 0);
                log(method, path, key, answer, RequestLog.Phase.ANSWERED);
            } else if (hold.isPresent()) {
                boolean hidden = holds.unlisted(answer.operation(), answer.ordinal()) && answer.machine() != null
                        && unlisted.add(answer.machine());
                log(method, path, key, answer, RequestLog.Phase.HELD);
                awaitRelease(hold.get());
                if (hidden) {
                    unlisted.remove(answer.machine());
                }
                log(method, path, key, answer, RequestLog.Phase.RELEASED);
            } else {
                log(method, path, key, answer, RequestLog.Phase.ANSWERED);
            }
            try {
                send(exchange, answer);
            } catch (IOException e) {
                log(method, path, key, answer, RequestLog.Phase.LOST);
            }
        }
    }

    private void log(String method, String path, String key, Answer answer, RequestLog.Phase phase) {
        requests.add(clock.instant(), method, path, answer.operation() == null ? null : answer.operation().operationId(),
                answer.ordinal(), key, answer.status(), answer.machine(), phase);
    }

    private void awaitRelease(Duration hold) {
        try {
            release.get().await(hold.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Answer answer(HttpExchange exchange, String method, String path, String key) throws UncheckedIOException {
        if (!authorised(exchange.getRequestHeaders().getFirst("Authorization"))) {
            exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer");
            return Answer.error(401, "missing or wrong bearer token (Authorization: Bearer <the token in " + tokenFile.getFileName()
                    + ">)", null, 0);
        }
        Matcher m;
        if ((m = POOL_MACHINES.matcher(path)).matches()) {
            String pool = decode(m.group(1));
            if (!POOL_NAME.matcher(pool).matches() || pool.length() > 63) {
                return Answer.error(400, "pool \"" + pool + "\" is not a DNS label (lower case letters, digits and '-', at most 63)",
                        null, 0);
            }
            return switch (method) {
                case "GET" -> {
                    int n = count(Operation.LIST);
                    yield new Answer(200, MachineApiJson.machineList(cloud.list(pool).stream().filter(machine -> !unlisted.contains(machine.id()))
                            .toList()), Operation.LIST, n, null);
                }
                case "POST" -> create(exchange, pool, key);
                default -> notAllowed(exchange, method, path, "GET, POST");
            };
        }
        if ((m = MACHINE_ACTION.matcher(path)).matches()) {
            String id = decode(m.group(1));
            if (!method.equals("POST")) {
                return notAllowed(exchange, method, path, "POST");
            }
            return m.group(2).equals("replace") ? replace(exchange, id, key) : update(exchange, id, key);
        }
        if ((m = MACHINE.matcher(path)).matches()) {
            String id = decode(m.group(1));
            return switch (method) {
                case "DELETE" -> {
                    int n = count(Operation.DELETE);
                    yield cloud.delete(id) ? new Answer(202, null, Operation.DELETE, n, id)
                            : Answer.error(404, "no machine " + id + " (already gone)", Operation.DELETE, n);
                }
                case "PATCH" -> patch(exchange, id);
                default -> notAllowed(exchange, method, path, "DELETE, PATCH");
            };
        }
        return Answer.error(404, "no such path: " + method + " " + path + "; the machine API v1 has /v1/pools/{pool}/machines,"
                + " /v1/machines/{id}, /v1/machines/{id}/replace and /v1/machines/{id}/update", null, 0);
    }

    private Answer create(HttpExchange exchange, String pool, String key) {
        Optional<String> wrong = keyProblem(key);
        if (wrong.isPresent()) {
            return Answer.error(400, wrong.get(), Operation.CREATE, 0);
        }
        return call(Operation.CREATE, () -> {
            var request = MachineApiJson.readMachineRequest(body(exchange));
            return () -> {
                var outcome = cloud.createMachine(pool, key, request);
                return new Answer(outcome.repeated() ? 200 : 201, MachineApiJson.machine(outcome.machine()), null, 0,
                        outcome.machine().id());
            };
        });
    }

    private Answer replace(HttpExchange exchange, String id, String key) {
        Optional<String> wrong = keyProblem(key);
        if (wrong.isPresent()) {
            return Answer.error(400, wrong.get(), Operation.REPLACE, 0);
        }
        return call(Operation.REPLACE, () -> {
            var request = MachineApiJson.readMachineRequest(body(exchange));
            return () -> {
                var outcome = cloud.replaceMachine(id, key, request);
                return new Answer(202, MachineApiJson.machine(outcome.machine()), null, 0, outcome.machine().id());
            };
        });
    }

    private Answer update(HttpExchange exchange, String id, String key) {
        Optional<String> wrong = keyProblem(key);
        if (wrong.isPresent()) {
            return Answer.error(400, wrong.get(), Operation.UPDATE, 0);
        }
        return call(Operation.UPDATE, () -> {
            var request = MachineApiJson.readUpdateRequest(body(exchange));
            return () -> {
                cloud.updateMachine(id, key, request);
                return new Answer(202, null, null, 0, id);
            };
        });
    }

    private Answer patch(HttpExchange exchange, String id) {
        String type = exchange.getRequestHeaders().getFirst("Content-Type");
        if (type != null && !type.startsWith("application/merge-patch+json") && !type.startsWith(JSON_TYPE)) {
            return Answer.error(415, "PATCH takes application/merge-patch+json, not " + type, Operation.PATCH, 0);
        }
        return call(Operation.PATCH, () -> {
            var patch = MachineApiJson.readAnnotationsPatch(body(exchange));
            return () -> new Answer(200, MachineApiJson.machine(cloud.patchAnnotations(id, patch)), null, 0, id);
        });
    }

    /** The work of one request, once its body is read. */
    @FunctionalInterface
    private interface Work {
        Answer run();
    }

    @FunctionalInterface
    private interface Parse {
        Work read();
    }

    /**
     * Reads the body (400 with the codec's field error when malformed), counts the request (it
     * reached the cloud) and does the work (the cloud's {@link MachineApiException} carries the status).
     */
    private Answer call(Operation operation, Parse parse) {
        Work work;
        try {
            work = parse.read();
        } catch (MachineApiJson.MalformedJson e) {
            return Answer.error(400, e.getMessage(), operation, 0);
        }
        int n = count(operation);
        try {
            Answer done = work.run();
            return new Answer(done.status(), done.body(), operation, n, done.machine());
        } catch (MachineApiException e) {
            return Answer.error(e.status(), e.getMessage(), operation, n);
        }
    }

    private synchronized int count(Operation operation) {
        return counted.merge(operation, 1, Integer::sum);
    }

    private static Optional<String> keyProblem(String key) {
        if (key == null || key.isEmpty()) {
            return Optional.of("header Idempotency-Key is required: the same key for a request repeated, so that nothing is done twice");
        }
        if (key.length() < 16 || key.length() > 128) {
            return Optional.of("header Idempotency-Key must have 16 to 128 characters, it has " + key.length());
        }
        return Optional.empty();
    }

    private Answer notAllowed(HttpExchange exchange, String method, String path, String allowed) {
        exchange.getResponseHeaders().set("Allow", allowed);
        return Answer.error(405, method + " is not allowed on " + path + "; allowed: " + allowed, null, 0);
    }

    private boolean authorised(String header) {
        if (header == null || !header.startsWith("Bearer ")) {
            return false;
        }
        return MessageDigest.isEqual(header.substring("Bearer ".length()).strip().getBytes(StandardCharsets.UTF_8), token);
    }

    private static String decode(String segment) {
        return URLDecoder.decode(segment.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    private static String body(HttpExchange exchange) {
        try (InputStream in = exchange.getRequestBody()) {
            byte[] bytes = in.readNBytes(MAX_BODY + 1);
            if (bytes.length > MAX_BODY) {
                throw new MachineApiJson.MalformedJson("the body is larger than " + MAX_BODY + " bytes");
            }
            return new String(bytes, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void send(HttpExchange exchange, Answer answer) throws IOException {
        if (answer.body() == null) {
            exchange.sendResponseHeaders(answer.status(), -1);
            return;
        }
        byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", JSON_TYPE);
        exchange.sendResponseHeaders(answer.status(), bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
