package dev.nightshift.agent.provider.capi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The surge requests kept on a MachineDeployment: what {@code spec.replicas} is computed from. */
class SurgeRequestsTest {

    private static final Instant T0 = Instant.parse("2026-11-20T03:00:00Z");

    @Test
    void noAnnotationIsNoRequest() {
        assertThat(SurgeRequests.read(null).size()).isZero();
        assertThat(SurgeRequests.read(" ").size()).isZero();
    }

    @Test
    void whatIsWrittenReadsBackTheSame() {
        SurgeRequests requests = new SurgeRequests(Map.of("node-b", T0.plusSeconds(5), "node-a", T0));

        assertThat(SurgeRequests.read(requests.write())).isEqualTo(requests);
        assertThat(requests.write()).isEqualTo("{\"node-a\":\"2026-11-20T03:00:00Z\",\"node-b\":\"2026-11-20T03:00:05Z\"}");
    }

    @Test
    void askingAgainForAPartnerKeepsTheFirstRequestAndItsTime() {
        SurgeRequests once = new SurgeRequests(Map.of()).with("node-a", T0);

        SurgeRequests twice = once.with("node-a", T0.plusSeconds(60));

        assertThat(twice).isEqualTo(once);
        assertThat(twice.size()).isEqualTo(1);
        assertThat(twice.partners()).containsEntry("node-a", T0);
    }

    @Test
    void withoutAPartnerLeavesTheOthers() {
        SurgeRequests requests = new SurgeRequests(Map.of("node-a", T0, "node-b", T0));

        assertThat(requests.without("node-a").partners()).containsOnlyKeys("node-b");
        assertThat(requests.without("node-x")).isEqualTo(requests);
    }

    @Test
    void anAnnotationThatIsNotNightshiftsJsonIsAnErrorNamingIt() {
        assertThatThrownBy(() -> SurgeRequests.read("{\"node-a\":\"yesterday\"}"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining(SurgeRequests.ANNOTATION).hasMessageContaining("yesterday");
        assertThatThrownBy(() -> SurgeRequests.read("node-a")).isInstanceOf(IllegalStateException.class);
    }
}
