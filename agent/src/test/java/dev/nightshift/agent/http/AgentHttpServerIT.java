package dev.nightshift.agent.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.git.Secret;

/**
 * The agent's HTTP port against clients that stall, over real sockets on loopback: the health probe
 * still answers within the kubelet's patience, and every stalled connection is answered or closed by
 * its deadline, so that no client can hold the server's threads.
 */
class AgentHttpServerIT {

    private static final String SECRET = "a-webhook-secret-of-32-bytes-000";
    private static final Duration HEADERS = Duration.ofSeconds(2);
    private static final Duration BODY = Duration.ofSeconds(2);
    /** What a deadline may be late by: the alarm's thread, the interrupt, the close. */
    private static final Duration SLACK = Duration.ofSeconds(1);
    /** More than the server's old four threads, and more than the webhook's bodies at once. */
    private static final int STALLED = 8;

    @TempDir
    Path tmp;

    private AgentHttpServer server;
    private final AtomicInteger polls = new AtomicInteger();
    private final List<Socket> clients = new ArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    @BeforeEach
    void start() throws IOException {
        WebhookVerifier verifier = new WebhookVerifier(Secret.fromFile(Files.writeString(tmp.resolve("secret"), SECRET)));
        server = new AgentHttpServer(new InetSocketAddress("127.0.0.1", 0), new AgentHttpServer.Deadlines(HEADERS, Duration.ofSeconds(30)))
                .handle("/healthz", new TextHandler(() -> new TextHandler.Response(200, "text/plain", "ok\n")))
                .handle("/hooks/git", new GitWebhookHandler(verifier, polls::incrementAndGet, BODY));
        server.start();
    }

    @AfterEach
    void stop() throws IOException {
        for (Socket client : clients) {
            client.close();
        }
        server.close();
    }

    /** A client that sends {@code text} and then nothing more. */
    private Socket stalled(String text) throws IOException {
        Socket socket = new Socket("127.0.0.1", server.port());
        clients.add(socket);
        socket.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        return socket;
    }

    private static String webhookHeaders(long contentLength) {
        return "POST /hooks/git HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + WebhookVerifier.GITLAB_TOKEN + ": " + SECRET + "\r\nContent-Length: " + contentLength + "\r\n\r\n";
    }

    /** The health probe's status, asked the kubelet's way: an answer within a second, or a failure. */
    private int healthz() throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/healthz"))
                .timeout(Duration.ofSeconds(1)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /** What the server said before it closed the connection, and how long after {@code since} it closed it. */
    private record Ending(String said, Duration after) {

        int status() {
            return said.startsWith("HTTP/1.1 ") ? Integer.parseInt(said.substring(9, 12)) : 0;
        }
    }

    /** Reads until the server closes the connection; a server that keeps it open past {@code patience} fails the read. */
    private static Ending ending(Socket socket, long since, Duration patience) throws IOException {
        socket.setSoTimeout((int) patience.toMillis());
        InputStream in = socket.getInputStream();
        String said;
        try {
            said = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        } catch (java.net.SocketException reset) {
            said = "";
        }
        return new Ending(said, Duration.ofNanos(System.nanoTime() - since));
    }

    @Test
    void webhookBodiesThatNeverComeStarveNeitherTheHealthProbeNorHoldTheirConnectionsPastTheDeadline() throws Exception {
        long since = System.nanoTime();
        List<Socket> stalled = new ArrayList<>();
        for (int i = 0; i < STALLED; i++) {
            // The headers promise 64 bytes; the body starts and stalls.
            stalled.add(stalled(webhookHeaders(64) + "{\"ref\":"));
        }

        for (int probe = 0; probe < 3; probe++) {
            assertThat(healthz()).isEqualTo(200);
        }
        List<Ending> endings = new ArrayList<>();
        for (Socket socket : stalled) {
            endings.add(ending(socket, since, BODY.plus(SLACK).plus(SLACK)));
        }

        assertThat(endings).allSatisfy(e -> {
            // 408 when the body did not come in time, 503 when enough bodies were being read already.
            assertThat(e.status()).isIn(408, 503);
            assertThat(e.after()).isLessThanOrEqualTo(BODY.plus(SLACK));
        });
        assertThat(endings).filteredOn(e -> e.status() == 408).hasSize(GitWebhookHandler.CONCURRENT_BODIES);
        assertThat(polls).hasValue(0);
        assertThat(healthz()).isEqualTo(200);
    }

    @Test
    void clientsThatNeverFinishTheirHeadersDoNotStarveTheHealthProbeAndAreCutOffAtTheHeaderDeadline() throws Exception {
        long since = System.nanoTime();
        List<Socket> stalled = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            stalled.add(stalled("POST /hooks/git HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le"));
        }

        for (int probe = 0; probe < 3; probe++) {
            assertThat(healthz()).isEqualTo(200);
        }
        for (Socket socket : stalled) {
            Ending e = ending(socket, since, HEADERS.plus(SLACK).plus(SLACK));
            // No request, no answer: the connection is closed.
            assertThat(e.said()).isEmpty();
            assertThat(e.after()).isLessThanOrEqualTo(HEADERS.plus(SLACK));
        }
        assertThat(polls).hasValue(0);
    }

    @Test
    void requestsThatBringABodyTheProbesDoNotReadAreRefusedAtOnceAndHoldNoThread() throws Exception {
        long since = System.nanoTime();
        List<Socket> posts = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            // More than the server has threads; each promises a body that never comes.
            posts.add(stalled("POST /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n"));
        }
        Socket get = stalled("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n\r\n");

        for (int probe = 0; probe < 3; probe++) {
            assertThat(healthz()).isEqualTo(200);
        }
        for (Socket socket : posts) {
            Ending e = ending(socket, since, HEADERS.plus(SLACK));
            assertThat(e.status()).isEqualTo(405);
            assertThat(e.after()).isLessThan(HEADERS);
        }
        assertThat(ending(get, since, HEADERS.plus(SLACK)).status()).isEqualTo(400);
    }

    @Test
    void aWebhookBodyDeclaredOverTheCapIsRefusedAtOnceWithoutWaitingForIt() throws Exception {
        long since = System.nanoTime();
        Socket socket = stalled(webhookHeaders(GitWebhookHandler.MAX_BODY_BYTES + 1L));

        Ending e = ending(socket, since, BODY);

        assertThat(e.status()).isEqualTo(413);
        assertThat(e.said()).contains("Connection: close").endsWith("payload too large\n");
        assertThat(e.after()).isLessThan(BODY);
        assertThat(polls).hasValue(0);
    }

    @Test
    void aWebhookWhoseBodyArrivesInPiecesWithinTheDeadlineStillTriggersAPoll() throws Exception {
        String body = "{\"ref\":\"refs/heads/main\"}";
        Socket socket = stalled(webhookHeaders(body.length()) + body.substring(0, 5));
        socket.getOutputStream().write(body.substring(5).getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        socket.shutdownOutput();

        Ending e = ending(socket, System.nanoTime(), BODY.plus(SLACK));

        assertThat(e.status()).isEqualTo(202);
        assertThat(polls).hasValue(1);
    }
}
