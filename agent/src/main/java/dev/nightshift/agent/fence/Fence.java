package dev.nightshift.agent.fence;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Whether this replica may write now: to Kubernetes, to a machine provider. With leader election, only within the
 * renew deadline of the lease's last renewal by this replica: another replica can take the lease only once it has not
 * been renewed for the lease's whole duration, longer than the renew deadline, so every write that starts while the
 * fence holds starts before anyone else may act. Asked before every write and every retry of one, not only between
 * steps: a machine-API call retrying for minutes stops at its next attempt once the fence falls.
 *
 * <p>Without leader election there is one replica, and the fence always holds ({@link #open()}).
 */
public final class Fence {

    private final Clock clock;
    /** Empty: no leader election, always held. */
    private final Optional<Duration> renewDeadline;
    private volatile Instant renewedAt;

    private Fence(Clock clock, Optional<Duration> renewDeadline) {
        this.clock = clock;
        this.renewDeadline = renewDeadline;
    }

    /** One replica, no lease: always held. */
    public static Fence open() {
        return new Fence(Clock.systemUTC(), Optional.empty());
    }

    /** Held only within {@code renewDeadline} of the lease's last renewal by this replica; not held before the first. */
    public static Fence lease(Clock clock, Duration renewDeadline) {
        return new Fence(clock, Optional.of(renewDeadline));
    }

    /** This replica wrote the lease as its holder (took or renewed it) at {@code at}: a time read before the write was sent. */
    public void renewed(Instant at) {
        renewedAt = at;
    }

    /** This replica lost the lease or left the election: no write until it is renewed again. */
    public void lost() {
        renewedAt = null;
    }

    public boolean held() {
        if (renewDeadline.isEmpty()) {
            return true;
        }
        Instant at = renewedAt;
        return at != null && clock.instant().isBefore(at.plus(renewDeadline.get()));
    }

    /** @throws FencedException naming {@code what} when the fence does not hold: nothing is sent */
    public void check(String what) {
        if (!held()) {
            throw new FencedException(what + ": not sent: this replica's lease was not renewed within its renew deadline"
                    + " (another replica may act now)");
        }
    }
}
