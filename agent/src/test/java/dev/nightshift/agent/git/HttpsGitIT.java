package dev.nightshift.agent.git;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.Optional;

import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.StoredConfig;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.transport.http.HttpConnection;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.spec.load.SpecLoader;

/** A token over HTTPS, against a Git server whose certificate a private CA made at test time. */
class HttpsGitIT {

    private static final String SPEC = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: prod}
            spec:
              kubernetes: {version: "1.31.4"}
            """;
    private static final String TOKEN = "tok-5e0d8b21c4";

    @TempDir
    Path tmp;

    private Path base;
    private String commit;
    private TestCertificates certificates;
    private Path caPem;
    private KeyStore serverKeys;
    private final RecordingListener listener = new RecordingListener();

    @BeforeEach
    void repositoryAndCertificates() throws Exception {
        base = Files.createDirectories(tmp.resolve("served"));
        GitWork work = GitWork.create(base, "specs.git", base.resolve("specs.git").toUri().toString(), tmp.resolve("work"));
        work.write("cluster.yaml", SPEC);
        commit = work.commitAndPush("first");
        certificates = new TestCertificates(Files.createDirectories(tmp.resolve("pki")));
        caPem = certificates.ca("private-ca");
        serverKeys = certificates.server("private-ca");
    }

    private HttpGitServer server() throws Exception {
        return HttpGitServer.https(base, "nightshift", TOKEN, serverKeys, TestCertificates.PASSWORD);
    }

    private GitSourceConfig config(String url, String ref, String token, Optional<Path> caFile) throws IOException {
        Secret secret = Secret.fromFile(Files.writeString(tmp.resolve("token"), token));
        return new GitSourceConfig(URI.create(url), ref, "", new GitCredentials.HttpsToken("nightshift", secret),
                tmp.resolve("cache"), caFile);
    }

    private PollResult poll(GitSourceConfig config) throws IOException {
        try (GitSource source = new GitSource(config)) {
            return new SpecPoller(source, new SpecLoader(), Optional.empty(), listener, Clock.systemUTC()).poll();
        }
    }

    @Test
    void aTokenOverHttpsWithTheCaFileFetchesTheSpecs() throws Exception {
        try (HttpGitServer server = server()) {
            PollResult result = poll(config(server.url("specs.git"), "main", TOKEN, Optional.of(caPem)));

            assertThat(result).as("%s", listener.failures).isEqualTo(PollResult.NEW_SPEC);
            assertThat(listener.specs).singleElement().satisfies(s -> assertThat(s.commit()).isEqualTo(commit));
        }
    }

    @Test
    void anUnchangedPollWithATokenAndTheCaFileMakesOneConnection() throws Exception {
        try (HttpGitServer server = server();
             GitSource source = new GitSource(config(server.url("specs.git"), "main", TOKEN, Optional.of(caPem)))) {
            SpecPoller poller = new SpecPoller(source, new SpecLoader(), Optional.empty(), listener, Clock.systemUTC());
            assertThat(poller.poll()).isEqualTo(PollResult.NEW_SPEC);
            int requests = server.requests.get();
            int connections = server.connections.get();

            assertThat(poller.poll()).isEqualTo(PollResult.UNCHANGED);

            // info/refs refused for want of credentials, info/refs again with them, ls-refs: one TLS handshake, as git's.
            assertThat(server.requests.get() - requests).as("requests of the poll").isEqualTo(3);
            assertThat(server.connections.get() - connections).as("connections of the poll").isEqualTo(1);
        }
    }

    @Test
    void withoutACaFileThePrivateCertificateIsNotTrusted() throws Exception {
        try (HttpGitServer server = server()) {
            PollResult result = poll(config(server.url("specs.git"), "main", TOKEN, Optional.empty()));

            assertThat(result).isEqualTo(PollResult.FAILED);
            assertThat(server.rejected.get()).as("no request got through").isZero();
            assertThat(listener.failures).singleElement().satisfies(e -> assertThat(e.getMessage())
                    .contains("cannot list", server.url("specs.git"))
                    .contains("the server's certificate is not trusted by the JDK's CAs")
                    .contains("git.caFile (--git-ca-file)")
                    .doesNotContain(TOKEN));
        }
    }

    @Test
    void aCaFileOfAnotherCaIsNotTrustedAndNamed() throws Exception {
        Path otherCa = new TestCertificates(Files.createDirectories(tmp.resolve("other"))).ca("other-ca");
        try (HttpGitServer server = server()) {
            PollResult result = poll(config(server.url("specs.git"), "main", TOKEN, Optional.of(otherCa)));

            assertThat(result).isEqualTo(PollResult.FAILED);
            assertThat(listener.failures).singleElement().satisfies(e -> assertThat(e.getMessage())
                    .contains("the server's certificate is not trusted by the CA certificates in " + otherCa)
                    .doesNotContain(TOKEN));
        }
    }

    @Test
    void aCertificateForAnotherHostIsRefusedEvenFromTheTrustedCa() throws Exception {
        KeyStore otherHost = certificates.server("private-ca", "DNS:git.example.com");
        try (HttpGitServer server = HttpGitServer.https(base, "nightshift", TOKEN, otherHost, TestCertificates.PASSWORD)) {
            PollResult result = poll(config(server.url("specs.git"), "main", TOKEN, Optional.of(caPem)));

            assertThat(result).isEqualTo(PollResult.FAILED);
            assertThat(server.rejected.get()).as("no request got through").isZero();
            assertThat(listener.failures).singleElement().satisfies(e -> assertThat(e.getMessage())
                    .contains("127.0.0.1").contains("the server's certificate was refused").doesNotContain("not trusted")
                    .doesNotContain(TOKEN));
        }
    }

    @Test
    void aWrongTokenOverHttpsFailsClearlyWithoutTheToken() throws Exception {
        String wrong = "wrong-91ac0e";
        try (HttpGitServer server = server()) {
            PollResult result = poll(config(server.url("specs.git"), "main", wrong, Optional.of(caPem)));

            assertThat(result).isEqualTo(PollResult.FAILED);
            assertThat(server.rejected.get()).as("the server refused the credentials").isPositive();
            assertThat(listener.failures).singleElement().satisfies(e -> assertThat(e.getMessage())
                    .contains("cannot list", server.url("specs.git")).containsIgnoringCase("not authorized")
                    .doesNotContain(wrong).doesNotContain(TOKEN).doesNotContain("not trusted"));
        }
    }

    @Test
    void aGitConfigThatTurnsVerificationOffIsIgnored() throws Exception {
        // A pinned commit skips ls-remote, so the fetch runs with the local repository's configuration.
        try (Repository local = new FileRepositoryBuilder().setGitDir(tmp.resolve("cache/repo.git").toFile()).setBare().build()) {
            local.create(true);
            StoredConfig gitConfig = local.getConfig();
            gitConfig.setBoolean("http", null, "sslVerify", false);
            gitConfig.save();
        }
        try (HttpGitServer server = server()) {
            PollResult result = poll(config(server.url("specs.git"), commit, TOKEN, Optional.empty()));

            assertThat(result).isEqualTo(PollResult.FAILED);
            assertThat(listener.failures).singleElement().satisfies(e -> assertThat(e.getMessage())
                    .contains("cannot fetch").contains("not trusted"));
        }
    }

    @Test
    void aConnectionCannotBeToldToTrustEveryone() throws Exception {
        X509TrustManager everyone = new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        };
        try (HttpGitServer server = server()) {
            HttpConnection connection = new VerifyingHttpConnectionFactory(Optional.empty())
                    .create(new URL(server.url("specs.git") + "/info/refs"));
            connection.configure(null, new TrustManager[] {everyone}, null);
            connection.setHostnameVerifier((host, session) -> true);

            assertThatThrownBy(connection::getResponseCode).isInstanceOf(SSLHandshakeException.class);
        }
    }

    @Test
    void theCaFileReplacesTheJdkDefaultCas() throws Exception {
        TrustManager[] managers = CaFile.trustManagers(caPem);

        assertThat(managers).singleElement().isInstanceOfSatisfying(X509TrustManager.class,
                m -> assertThat(m.getAcceptedIssuers()).as("only the file's CA, none of the JDK's")
                        .containsExactlyElementsOf(CaFile.certificates(caPem).stream().map(X509Certificate.class::cast).toList())
                        .extracting(c -> c.getSubjectX500Principal().getName()).containsExactly("CN=Nightshift test private-ca"));
    }

    @Test
    void aMissingCaFileIsAConfigErrorNamingTheFile() throws Exception {
        Path missing = tmp.resolve("no-such-ca.pem");

        assertThatThrownBy(() -> new GitSource(config("https://127.0.0.1:1/git/specs.git", "main", TOKEN, Optional.of(missing))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("CA file " + missing + ": no such file");
        assertThat(tmp.resolve("cache")).as("nothing created").doesNotExist();
    }

    @Test
    void aCaFileThatIsNotPemIsAConfigErrorNamingTheFile() throws Exception {
        Path der = tmp.resolve("ca.der");
        Files.write(der, TestCertificates.certificates(caPem).get(0).getEncoded());

        assertThatThrownBy(() -> new GitSource(config("https://127.0.0.1:1/git/specs.git", "main", TOKEN, Optional.of(der))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("CA file " + der + ": not a PEM file with a certificate")
                .hasMessageContaining("-----BEGIN CERTIFICATE-----");
    }
}
