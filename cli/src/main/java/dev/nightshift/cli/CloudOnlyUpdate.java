package dev.nightshift.cli;

import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.nightshift.agent.provider.Machine;
import dev.nightshift.agent.provider.MachineProvider;
import dev.nightshift.agent.provider.ProviderCapabilities;
import dev.nightshift.spec.model.PoolRole;
import dev.nightshift.strategies.model.DesiredPool;

/**
 * {@code rolling-update --cloudonly} (kops' {@code --cloudonly}): for a cluster whose API is down, the machines are replaced
 * by the provider alone, one at a time, with no Kubernetes request at all: no taint, cordon, drain or validation. Each
 * replacement waits until the provider reports the pool settled (every machine running, none being deleted), up to the
 * validation timeout, then the role's interval. Pools in the order the agent rolls them (bastions, control planes,
 * apiservers, nodes; by name).
 */
final class CloudOnlyUpdate {

    /** How a run waits: {@link Thread#sleep} in the command, a fake in tests. */
    @FunctionalInterface
    interface Pause {
        void sleep(Duration d) throws InterruptedException;
    }

    record Settings(boolean force, Map<PoolRole, Duration> intervals, Duration validationTimeout, boolean failOnValidateError) {
    }

    private static final Duration POLL = Duration.ofSeconds(1);

    private final MachineProvider provider;
    private final ProviderCapabilities capabilities;
    private final Settings settings;
    private final Clock clock;
    private final Pause pause;
    private final Progress progress;
    private final PrintWriter err;

    CloudOnlyUpdate(MachineProvider provider, Settings settings, Clock clock, Pause pause, Progress progress, PrintWriter err) {
        this.provider = provider;
        this.capabilities = new ProviderCapabilities(provider);
        this.settings = settings;
        this.clock = clock;
        this.pause = pause;
        this.progress = progress;
        this.err = err;
    }

    /** Whether the machine was made (or stamped) for the desired spec. */
    static boolean current(DesiredPool pool, Machine m) {
        return pool.rollHash().equals(m.rollHash());
    }

    /** The pool's machines as the provider has them now, not as it listed them before. */
    List<Machine> machines(String pool) {
        capabilities.nodeChanged(pool);
        capabilities.refresh();
        return provider.machines(pool);
    }

    /** Replaces every outdated machine of the pools (every machine with {@code force}); false when one failed. */
    boolean run(List<DesiredPool> pools) throws InterruptedException {
        for (DesiredPool pool : pools) {
            List<Machine> todo = machines(pool.name()).stream().filter(m -> !m.deleting() && (settings.force() || !current(pool, m)))
                    .toList();
            int total = todo.size();
            int done = 0;
            progress.update(pool.name(), done, total, total == 0 ? "current" : "replacing");
            for (Machine m : todo) {
                progress.update(pool.name(), done, total, "replacing machine " + m.name());
                MachineProvider.Deletion deletion = provider.delete(pool, m.name(), true);
                if (!deletion.started()) {
                    err.println("pool " + pool.name() + ": machine " + m.name() + " was not replaced: " + deletion.detail());
                    return false;
                }
                if (!settled(pool, m.name()) && settings.failOnValidateError()) {
                    err.println("pool " + pool.name() + ": the replacement of machine " + m.name() + " was not running within "
                            + settings.validationTimeout().toSeconds() + "s (--validation-timeout); stopping (--fail-on-validate-error)");
                    return false;
                }
                done++;
                progress.update(pool.name(), done, total, done == total ? "current" : "waiting " + interval(pool).toSeconds() + "s");
                if (done < total) {
                    pause.sleep(interval(pool));
                }
            }
        }
        return true;
    }

    /** Waits until the old machine is gone and every machine of the pool runs; false at the validation timeout. */
    private boolean settled(DesiredPool pool, String old) throws InterruptedException {
        Instant deadline = clock.instant().plus(settings.validationTimeout());
        while (true) {
            List<Machine> now = machines(pool.name());
            if (now.stream().noneMatch(m -> m.name().equals(old)) && now.stream().allMatch(m -> m.running() && !m.deleting())) {
                return true;
            }
            if (!clock.instant().isBefore(deadline)) {
                return false;
            }
            pause.sleep(POLL);
        }
    }

    private Duration interval(DesiredPool pool) {
        return settings.intervals().getOrDefault(pool.spec().pool().role(), Duration.ZERO);
    }
}
