package dev.nightshift.agent.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.Lock;

/** The fence: held within the renew deadline of this replica's last renewal of the lease, and only then. */
class FenceTest {

    private static final Instant T0 = Instant.parse("2026-11-27T10:00:00Z");

    private Instant now = T0;
    private final Clock clock = new Clock() {
        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    };

    @Test
    void withoutLeaderElectionTheFenceAlwaysHolds() {
        assertThat(Fence.open().held()).isTrue();
    }

    @Test
    void withALeaseItHoldsOnlyFromARenewalUntilTheRenewDeadline() {
        Fence fence = Fence.lease(clock, Duration.ofSeconds(10));
        assertThat(fence.held()).as("before this replica ever took the lease").isFalse();

        fence.renewed(T0);
        now = T0.plusSeconds(9);
        assertThat(fence.held()).isTrue();

        now = T0.plusSeconds(10);
        assertThat(fence.held()).as("at the renew deadline").isFalse();
        assertThatThrownBy(() -> fence.check("PATCH /api/v1/nodes/web-1")).isInstanceOf(FencedException.class)
                .hasMessageStartingWith("PATCH /api/v1/nodes/web-1: not sent");
    }

    @Test
    void aLostLeaseDropsTheFenceAtOnce() {
        Fence fence = Fence.lease(clock, Duration.ofSeconds(10));
        fence.renewed(T0);

        fence.lost();

        assertThat(fence.held()).isFalse();
    }

    @Test
    void theLockRenewsTheFenceWhenThisReplicaWritesTheLeaseAsHolderFromBeforeTheWriteAndDropsItOnARelease() {
        Fence fence = Fence.lease(clock, Duration.ofSeconds(10));
        Lock slow = new Lock() {
            @Override
            public LeaderElectionRecord get(KubernetesClient client) {
                return null;
            }

            @Override
            public void create(KubernetesClient client, LeaderElectionRecord record) {
                now = now.plusSeconds(3);
            }

            @Override
            public void update(KubernetesClient client, LeaderElectionRecord record) {
                now = now.plusSeconds(3);
            }

            @Override
            public String identity() {
                return "replica-a";
            }

            @Override
            public String describe() {
                return "lease";
            }
        };
        FencingLock lock = new FencingLock(slow, fence, clock);

        lock.update(null, new LeaderElectionRecord("replica-a", Duration.ofSeconds(15), T0.atZone(ZoneOffset.UTC), T0.atZone(ZoneOffset.UTC), 0));
        now = T0.plusSeconds(9);
        assertThat(fence.held()).as("9 s after the renewal was sent (6 s after its answer)").isTrue();
        now = T0.plusSeconds(11);
        assertThat(fence.held()).as("counted from when the renewal was sent, not answered").isFalse();

        lock.update(null, new LeaderElectionRecord("", Duration.ofSeconds(15), T0.atZone(ZoneOffset.UTC), T0.atZone(ZoneOffset.UTC), 1));
        assertThat(fence.held()).as("released").isFalse();
    }
}
