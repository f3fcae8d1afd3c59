package dev.nightshift.agent.provider.http;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
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
    void theTimeoutMustBePositive() {
        assertThatThrownBy(() -> new MachineApiEndpoint(URI.create("http://127.0.0.1:9500"), Path.of("token"), Optional.empty(), Duration.ZERO))
                .hasMessageContaining("timeout must be positive");
    }
}
