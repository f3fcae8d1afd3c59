package dev.nightshift.agent.provider.http;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.github.tomakehurst.wiremock.WireMockServer;

import dev.nightshift.agent.git.TestCertificates;

/**
 * The client over HTTPS, against WireMock serving a certificate for 127.0.0.1 signed by a private
 * CA that openssl makes for the test.
 */
class HttpMachineApiClientTlsTest {

    private static final String TOKEN = "tls-t0ken";
    private static final MachineApiContract CONTRACT = new MachineApiContract();

    @TempDir
    static Path tmp;
    private static Path ca;
    private static Path otherCa;
    private static Path tokenFile;
    private static WireMockServer wireMock;
    private final List<Duration> sleeps = new ArrayList<>();

    @BeforeAll
    static void startHttpsServer() throws Exception {
        TestCertificates certificates = new TestCertificates(tmp);
        ca = certificates.ca("machine-api-ca");
        otherCa = certificates.ca("other-ca");
        KeyStore server = certificates.server("machine-api-ca");
        Path keystore = tmp.resolve("server.p12");
        try (OutputStream out = Files.newOutputStream(keystore)) {
            server.store(out, TestCertificates.PASSWORD.toCharArray());
        }
        tokenFile = Files.writeString(tmp.resolve("token"), TOKEN);
        wireMock = new WireMockServer(options().httpDisabled(true).dynamicHttpsPort().bindAddress("127.0.0.1")
                .keystorePath(keystore.toString()).keystoreType("PKCS12")
                .keystorePassword(TestCertificates.PASSWORD).keyManagerPassword(TestCertificates.PASSWORD));
        wireMock.start();
        wireMock.stubFor(get("/v1/pools/workers/machines").willReturn(aResponse().withStatus(200)
                .withHeader("Content-Type", "application/json").withBody(MachineApiJson.machineList(List.of()))));
    }

    @AfterAll
    static void stopServer() {
        wireMock.stop();
    }

    @AfterEach
    void everyRequestKeptTheOpenApiFile() {
        assertThat(CONTRACT.violations(wireMock.getAllServeEvents(), "")).isEmpty();
        wireMock.resetRequests();
    }

    private HttpMachineApiClient client(Optional<Path> caFile) {
        URI url = URI.create("https://127.0.0.1:" + wireMock.httpsPort());
        return new HttpMachineApiClient(new MachineApiEndpoint(url, tokenFile, caFile, Duration.ofSeconds(5)), RetryPolicy.DEFAULT,
                new SplittableRandom(1), sleeps::add, Clock.systemUTC());
    }

    @Test
    void withTheCaFileThatSignedTheServersCertificateTheCallSucceeds() {
        assertThat(client(Optional.of(ca)).list("workers")).isEmpty();

        assertThat(wireMock.getAllServeEvents()).singleElement()
                .satisfies(event -> assertThat(event.getRequest().getHeader("Authorization")).isEqualTo("Bearer " + TOKEN));
    }

    @Test
    void withAnotherCaTheCertificateIsRefusedAtOnceAndNothingIsSent() {
        MachineApiException e = catchThrowableOfType(MachineApiException.class, () -> client(Optional.of(otherCa)).list("workers"));

        assertThat(e.getMessage()).startsWith("GET https://127.0.0.1:" + wireMock.httpsPort() + "/v1/pools/workers/machines: "
                + "the server's certificate is not trusted").endsWith("give the CA that signed it as the provider's caFile");
        assertThat(e.retryable()).isFalse();
        assertThat(sleeps).isEmpty();
        assertThat(wireMock.getAllServeEvents()).isEmpty();
    }

    @Test
    void withoutACaFileTheJdksDefaultCasDoNotTrustAPrivateCa() {
        MachineApiException e = catchThrowableOfType(MachineApiException.class, () -> client(Optional.empty()).list("workers"));

        assertThat(e.getMessage()).contains("the server's certificate is not trusted");
        assertThat(wireMock.getAllServeEvents()).isEmpty();
    }

    @Test
    void aCaFileThatIsNotPemIsRefusedWhenTheClientIsMade() throws Exception {
        Path notPem = Files.writeString(tmp.resolve("not-a-ca.pem"), "hello");

        assertThatThrownBy(() -> client(Optional.of(notPem)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("CA file " + notPem + ": not a PEM file");
    }
}
