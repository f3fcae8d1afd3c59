package dev.nightshift.agent.git;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.spec.load.SpecLoader;

/** HTTPS-style token and SSH key authentication against in-process Git servers. */
class GitAuthenticationIT {

    private static final String SPEC = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: prod}
            spec:
              kubernetes: {version: "1.31.4"}
            """;
    private static final String TOKEN = "tok-3f9c2a7d1e";

    @TempDir
    Path tmp;

    private Path base;
    private String commit;
    private final RecordingListener listener = new RecordingListener();

    @BeforeEach
    void repository() throws Exception {
        base = Files.createDirectories(tmp.resolve("served"));
        GitWork work = GitWork.create(base, "specs.git", base.resolve("specs.git").toUri().toString(), tmp.resolve("work"));
        work.write("cluster.yaml", SPEC);
        commit = work.commitAndPush("first");
    }

    private PollResult poll(String url, GitCredentials credentials) throws IOException {
        GitSource source = new GitSource(new GitSourceConfig(URI.create(url), "main", "", credentials, tmp.resolve("cache")));
        try (source) {
            return new SpecPoller(source, new SpecLoader(), Optional.empty(), listener, Clock.systemUTC()).poll();
        }
    }

    private static Secret secret(Path dir, String value) throws IOException {
        return Secret.fromFile(Files.writeString(dir.resolve("token-" + value.hashCode()), value));
    }

    @Test
    void aTokenOverHttpFetchesTheSpecs() throws Exception {
        try (HttpGitServer server = new HttpGitServer(base, "nightshift", TOKEN)) {
            PollResult result = poll(server.url("specs.git"), new GitCredentials.HttpsToken("nightshift", secret(tmp, TOKEN)));

            assertThat(result).as("%s", listener.failures).isEqualTo(PollResult.NEW_SPEC);
            assertThat(listener.specs.get(0).commit()).isEqualTo(commit);
        }
    }

    @Test
    void aWrongTokenFailsClearlyWithoutTheToken() throws Exception {
        String wrong = "wrong-7b1c99";
        try (HttpGitServer server = new HttpGitServer(base, "nightshift", TOKEN)) {
            PollResult result = poll(server.url("specs.git"), new GitCredentials.HttpsToken("nightshift", secret(tmp, wrong)));

            assertThat(result).isEqualTo(PollResult.FAILED);
            assertThat(server.rejected.get()).as("the server refused the credentials").isPositive();
            assertThat(listener.failures).singleElement().satisfies(e -> assertThat(e.getMessage())
                    .contains("cannot list").contains(server.url("specs.git")).containsIgnoringCase("not authorized")
                    .doesNotContain(wrong).doesNotContain(TOKEN));
        }
    }

    @Test
    void anSshKeyWithAKnownHostKeyFetchesTheSpecs() throws Exception {
        Path key = clientKey();
        try (SshGitServer server = new SshGitServer(base, key.resolveSibling("client.pub"), tmp.resolve("host.key"))) {
            Path knownHosts = Files.writeString(tmp.resolve("known_hosts"), server.knownHostsLine() + "\n");

            PollResult result = poll(server.url("specs.git"), new GitCredentials.SshKey(key, knownHosts));

            assertThat(result).as("%s", listener.failures).isEqualTo(PollResult.NEW_SPEC);
            assertThat(listener.specs.get(0).commit()).isEqualTo(commit);
        }
    }

    @Test
    void anUnknownHostKeyIsRefusedClearlyWithoutThePrivateKey() throws Exception {
        Path key = clientKey();
        // The key file's armour and each line of its base64 body.
        String[] keyMaterial = Files.readAllLines(key).stream().filter(line -> !line.isBlank()).toArray(String[]::new);
        assertThat(keyMaterial).as("the private key file").hasSizeGreaterThan(2);
        try (SshGitServer server = new SshGitServer(base, key.resolveSibling("client.pub"), tmp.resolve("host.key"))) {
            Path knownHosts = Files.writeString(tmp.resolve("known_hosts"), "");

            PollResult result = poll(server.url("specs.git"), new GitCredentials.SshKey(key, knownHosts));

            assertThat(result).isEqualTo(PollResult.FAILED);
            assertThat(listener.failures).singleElement().satisfies(e -> assertThat(e.getMessage())
                    .contains("cannot list").containsIgnoringCase("key did not validate")
                    .doesNotContain("PRIVATE KEY").doesNotContain(keyMaterial));
        }
    }

    @Test
    void aChangedHostKeyIsRefused() throws Exception {
        Path key = clientKey();
        Path other = sshKeygen("other");
        try (SshGitServer server = new SshGitServer(base, key.resolveSibling("client.pub"), tmp.resolve("host.key"))) {
            String impostor = Files.readString(other.resolveSibling("other.pub")).strip();
            Path knownHosts = Files.writeString(tmp.resolve("known_hosts"), server.knownHostsLine(impostor) + "\n");

            PollResult result = poll(server.url("specs.git"), new GitCredentials.SshKey(key, knownHosts));

            assertThat(result).isEqualTo(PollResult.FAILED);
            assertThat(listener.failures.get(0).getMessage()).containsIgnoringCase("key did not validate");
        }
    }

    @Test
    void aKeyTheServerDoesNotKnowIsRefused() throws Exception {
        Path key = clientKey();
        Path stranger = sshKeygen("stranger");
        try (SshGitServer server = new SshGitServer(base, key.resolveSibling("client.pub"), tmp.resolve("host.key"))) {
            Path knownHosts = Files.writeString(tmp.resolve("known_hosts"), server.knownHostsLine() + "\n");

            PollResult result = poll(server.url("specs.git"), new GitCredentials.SshKey(stranger, knownHosts));

            assertThat(result).isEqualTo(PollResult.FAILED);
            assertThat(listener.failures.get(0).getMessage()).contains("cannot list");
        }
    }

    private Path clientKey() throws Exception {
        return sshKeygen("client");
    }

    /** A key pair made by the real ssh-keygen, as a user would: {@code name} and {@code name.pub}. */
    private Path sshKeygen(String name) throws Exception {
        Path key = tmp.resolve(name);
        Process p = new ProcessBuilder("ssh-keygen", "-q", "-t", "ecdsa", "-b", "256", "-N", "", "-C", name, "-f", key.toString())
                .redirectErrorStream(true).start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        return key;
    }
}
