package dev.nightshift.agent.git;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;

import dev.nightshift.spec.load.SpecLoader;

/**
 * A poll that fails with an error carrying credentials: a Git host (a proxy in front of it, say) whose
 * every answer's status line repeats a URL with a token, an Authorization header and an access token,
 * which JGit puts in its exception's message. The failure reaches the listener ({@code /status}'s
 * {@code lastError}) and the log scrubbed.
 */
class CredentialScrubbingIT {

    private static final List<String> SECRETS = List.of("ghp_SECRET1", "hunter2", "SECRET3", "SECRET4");
    private static final String STATUS_LINE = "HTTP/1.1 502 upstream https://x-token:ghp_SECRET1@mirror.example.com/c.git"
            + " via http://nightshift:hunter2@10.0.0.1/c.git said Authorization: Bearer SECRET3 for ?access_token=SECRET4";

    @TempDir
    Path tmp;

    private ServerSocket server;
    private final RecordingListener listener = new RecordingListener();
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger pollerLog = (Logger) LoggerFactory.getLogger(SpecPoller.class);

    @BeforeEach
    void start() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread answering = new Thread(this::answer, "leaky-git-host");
        answering.setDaemon(true);
        answering.start();
        log.start();
        pollerLog.addAppender(log);
    }

    @AfterEach
    void stop() throws IOException {
        pollerLog.detachAppender(log);
        server.close();
    }

    /** Reads each request's headers and answers with the leaky status line. */
    private void answer() {
        while (!server.isClosed()) {
            try (Socket client = server.accept()) {
                BufferedReader in = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.ISO_8859_1));
                for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
                    // The request's headers: not needed.
                }
                client.getOutputStream().write((STATUS_LINE + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                        .getBytes(StandardCharsets.ISO_8859_1));
            } catch (IOException e) {
                // Closed, or the client went away.
            }
        }
    }

    @Test
    void aFailingPollWhoseErrorCarriesCredentialsReportsAndLogsThemScrubbed() throws Exception {
        GitSource source = new GitSource(new GitSourceConfig(URI.create("http://127.0.0.1:" + server.getLocalPort() + "/c.git"), "main",
                "", new GitCredentials.None(), tmp.resolve("cache")));
        SpecPoller poller = new SpecPoller(source, new SpecLoader(), Optional.of("prod"), listener, Clock.systemUTC());

        assertThat(poller.poll()).isEqualTo(PollResult.FAILED);

        GitSourceException failure = listener.failures.get(0);
        // It still says what happened, and that there were credentials.
        assertThat(failure.getMessage()).contains("502", "https://***@mirror.example.com/c.git", "Authorization: Bearer ***",
                "access_token=***");
        StringWriter trace = new StringWriter();
        failure.printStackTrace(new PrintWriter(trace));
        assertThat(log.list).isNotEmpty();
        for (String secret : SECRETS) {
            assertThat(failure.getMessage()).doesNotContain(secret);
            assertThat(trace.toString()).as("the stack trace, causes included").doesNotContain(secret);
            assertThat(log.list).allSatisfy(e -> assertThat(e.getFormattedMessage()).doesNotContain(secret));
        }
        source.close();
    }
}
