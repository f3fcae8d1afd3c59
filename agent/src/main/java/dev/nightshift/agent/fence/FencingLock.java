package dev.nightshift.agent.fence;

import java.time.Clock;
import java.time.Instant;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.Lock;

/**
 * The lease's lock, telling the {@link Fence} each time this replica writes the lease as its holder. The time is read
 * before the write is sent: the renewal counts from no later than the API server's, never from after it.
 */
public final class FencingLock implements Lock {

    private final Lock lock;
    private final Fence fence;
    private final Clock clock;

    public FencingLock(Lock lock, Fence fence, Clock clock) {
        this.lock = lock;
        this.fence = fence;
        this.clock = clock;
    }

    @Override
    public LeaderElectionRecord get(KubernetesClient client) {
        return lock.get(client);
    }

    @Override
    public void create(KubernetesClient client, LeaderElectionRecord record) {
        Instant sent = clock.instant();
        lock.create(client, record);
        held(record, sent);
    }

    @Override
    public void update(KubernetesClient client, LeaderElectionRecord record) {
        Instant sent = clock.instant();
        lock.update(client, record);
        held(record, sent);
    }

    private void held(LeaderElectionRecord record, Instant sent) {
        if (identity().equals(record.getHolderIdentity())) {
            fence.renewed(sent);
        } else {
            // Released (an empty holder on leaving): no write from here on.
            fence.lost();
        }
    }

    @Override
    public String identity() {
        return lock.identity();
    }

    @Override
    public String describe() {
        return lock.describe();
    }
}
