package dev.nightshift.agent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.git.Secret;

/** The webhook endpoint over real HTTP on loopback. */
class GitWebhookIT {

    private static final byte[] BODY = "{\"ref\":\"refs/heads/main\"}".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path tmp;

    private AgentHttpServer server;
    private WebhookVerifier verifier;
    private final AtomicInteger polls = new AtomicInteger();
    private final ExecutorService pollExecutor = Executors.newSingleThreadExecutor();
    private final HttpClient client = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws IOException {
        verifier = new WebhookVerifier(Secret.fromFile(Files.writeString(tmp.resolve("secret"), "s3cret")));
        server = new AgentHttpServer(new InetSocketAddress("127.0.0.1", 0))
                .handle("/hooks/git", new GitWebhookHandler(verifier, () -> pollExecutor.submit(polls::incrementAndGet)));
        server.start();
    }

    @AfterEach
    void stop() {
        server.close();
        pollExecutor.shutdownNow();
    }

    private HttpResponse<String> post(String header, String value) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/hooks/git"))
                .POST(HttpRequest.BodyPublishers.ofByteArray(BODY));
        if (header != null) {
            request.header(header, value);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aValidGithubSignatureTriggersAPollPromptly() throws Exception {
        HttpResponse<String> response = post(WebhookVerifier.GITHUB_SIGNATURE, verifier.sign(BODY));

        assertThat(response.statusCode()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(polls.get()).isEqualTo(1));
    }

    @Test
    void aValidGitlabTokenTriggersAPoll() throws Exception {
        assertThat(post(WebhookVerifier.GITLAB_TOKEN, "s3cret").statusCode()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(polls.get()).isEqualTo(1));
    }

    @Test
    void aBadSignatureIsUnauthorizedAndPollsNothing() throws Exception {
        assertThat(post(WebhookVerifier.GITHUB_SIGNATURE, "sha256=" + "0".repeat(64)).statusCode()).isEqualTo(401);
        assertThat(post(WebhookVerifier.GITLAB_TOKEN, "guess").statusCode()).isEqualTo(401);

        // A valid call afterwards is the first poll: the rejected ones triggered none.
        post(WebhookVerifier.GITLAB_TOKEN, "s3cret");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(polls.get()).isEqualTo(1));
    }

    @Test
    void aMissingSignatureIsUnauthorized() throws Exception {
        assertThat(post(null, null).statusCode()).isEqualTo(401);
    }

    @Test
    void onlyPostIsAllowed() throws Exception {
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.port() + "/hooks/git")).GET().build(), HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(405);
    }
}
