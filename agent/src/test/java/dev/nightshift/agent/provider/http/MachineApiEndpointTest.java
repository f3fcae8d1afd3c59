package dev.nightshift.agent.provider.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

class MachineApiEndpointTest {

    private static MachineApiEndpoint endpoint(String url) {
        return new MachineApiEndpoint(URI.create(url), Path.of("token"), Optional.empty(), Duration.ofSeconds(30));
    }

    @Test
    void aUrlWithUserInfoIsRefusedWithoutRepeatingIt() {
        assertThatThrownBy(() -> endpoint("https://admin:hunter2@cloud.example/api"))
                .hasMessage("machine API URL https://cloud.example/api must not carry user info; the token comes from the token file")
                .message().doesNotContain("hunter2");
    }

    @Test
    void onlyHttpAndHttpsWithAHostAreAccepted() {
        assertThatThrownBy(() -> endpoint("ftp://cloud.example")).hasMessageContaining("must be http:// or https:// with a host");
        assertThatThrownBy(() -> endpoint("cloud.example:9500")).hasMessageContaining("must be http:// or https:// with a host");
    }

    @Test
    void aQueryOrFragmentIsRefused() {
        assertThatThrownBy(() -> endpoint("http://127.0.0.1:9500/?x=1")).hasMessageContaining("must not have a query or fragment");
    }

    @Test
    void plainHttpToAHostThatIsNotLoopbackIsRefusedBecauseTheTokenWouldTravelInClear() {
        assertThatThrownBy(() -> endpoint("http://machines.example.com:9500"))
                .hasMessage("machine API URL http://machines.example.com:9500 is plain http:// to a host that is not loopback: the"
                        + " bearer token would cross the network in clear; use https:// (provider.http.caFile for a private CA),"
                        + " or http:// only to 127.0.0.0/8, ::1 or localhost");
        assertThatThrownBy(() -> endpoint("http://10.0.0.7")).hasMessageContaining("not loopback");
        assertThatThrownBy(() -> endpoint("http://128.0.0.1")).hasMessageContaining("not loopback");
        // A name that looks like loopback is not resolved, so not trusted.
        assertThatThrownBy(() -> endpoint("http://127.0.0.1.nip.io")).hasMessageContaining("not loopback");
    }

    @Test
    void plainHttpToLoopbackAndHttpsToAnyHostAreAccepted() {
        assertThat(List.of("http://127.0.0.1:9500", "http://127.8.9.10", "http://localhost:9500/api", "http://[::1]:9500",
                "https://machines.example.com", "https://10.0.0.7:8443").stream().map(MachineApiEndpointTest::endpoint)
                .map(e -> e.url().toString())).hasSize(6);
    }

    @Test
    void theTimeoutMustBePositive() {
        assertThatThrownBy(() -> new MachineApiEndpoint(URI.create("http://127.0.0.1:9500"), Path.of("token"), Optional.empty(), Duration.ZERO))
                .hasMessageContaining("timeout must be positive");
    }
}
