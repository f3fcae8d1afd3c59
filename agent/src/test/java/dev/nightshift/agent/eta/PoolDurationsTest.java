package dev.nightshift.agent.eta;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.nightshift.agent.window.Window;
import dev.nightshift.strategies.plan.PendingAction;

class PoolDurationsTest {

    private static PoolDurations drains(long... seconds) {
        PoolDurations d = PoolDurations.NONE;
        for (long s : seconds) {
            d = d.with(PoolDurations.Kind.DRAIN, Duration.ofSeconds(s));
        }
        return d;
    }

    @Test
    void theEstimateIsTheMedianSoOneSlowDrainDoesNotMoveIt() {
        assertThat(drains(30, 31, 600).estimate(PoolDurations.Kind.DRAIN)).isEqualTo(Duration.ofSeconds(31));
        assertThat(drains(30, 40).estimate(PoolDurations.Kind.DRAIN)).isEqualTo(Duration.ofSeconds(35));
    }

    @Test
    void aKindNeverObservedUsesItsDefaultAndSaysSo() {
        assertThat(PoolDurations.NONE.estimate(PoolDurations.Kind.CREATE)).isEqualTo(Duration.ofSeconds(120));
        assertThat(PoolDurations.NONE.describe(PoolDurations.Kind.IN_PLACE)).isEqualTo("in-place update 2m (default: none observed in this pool yet)");
    }

    @Test
    void onlyTheLastTenObservationsAreKept() {
        PoolDurations d = drains(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);

        assertThat(d.observed(PoolDurations.Kind.DRAIN)).hasSize(PoolDurations.KEPT).first().isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void theRecordsDataKeysRoundTripAndAHandEditIsSkipped() {
        PoolDurations d = drains(30, 31).with(PoolDurations.Kind.CREATE, Duration.ofMillis(61_400));

        assertThat(d.data()).isEqualTo(Map.of("createSeconds", "61", "drainSeconds", "30,31"));
        assertThat(PoolDurations.read(d.data())).isEqualTo(d);
        assertThat(PoolDurations.read(Map.of("drainSeconds", "30,x,-4,32")).observed(PoolDurations.Kind.DRAIN))
                .containsExactly(Duration.ofSeconds(30), Duration.ofSeconds(32));
    }

    @Test
    void theEtaAsJsonHasWorkSecondsCompletionWindowsAndAssumptions() {
        PoolEta eta = new PoolEta("web", PendingAction.ROLL, 4, Duration.ofSeconds(360), Instant.parse("2026-03-07T02:00:00Z"),
                Optional.of(Instant.parse("2026-03-07T03:03:00Z")),
                List.of(new Window(Instant.parse("2026-03-07T02:00:00Z"), Instant.parse("2026-03-07T02:02:00Z"), List.of("windows[0]"))),
                List.of("drain 30s (median of 1 observed)"));

        ObjectNode o = EtaJson.put(new ObjectMapper().createObjectNode(), eta);

        assertThat(o.toString()).isEqualTo("{\"workSeconds\":360,\"completesAt\":\"2026-03-07T03:03:00Z\","
                + "\"windows\":[{\"open\":\"2026-03-07T02:00:00Z\",\"close\":\"2026-03-07T02:02:00Z\"}],"
                + "\"assumptions\":[\"drain 30s (median of 1 observed)\"]}");
    }

    @Test
    void durationsAreShownShort() {
        assertThat(PoolEta.shortDuration(Duration.ofSeconds(45))).isEqualTo("45s");
        assertThat(PoolEta.shortDuration(Duration.ofSeconds(360))).isEqualTo("6m");
        assertThat(PoolEta.shortDuration(Duration.ofMinutes(190))).isEqualTo("3h10m");
        assertThat(PoolEta.shortDuration(Duration.ofHours(52))).isEqualTo("2d4h");
    }
}
