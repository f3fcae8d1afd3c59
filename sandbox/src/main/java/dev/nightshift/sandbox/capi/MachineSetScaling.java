package dev.nightshift.sandbox.capi;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * What upstream's MachineSet controller decides in {@code syncReplicas}
 * ({@code core/reconcilers/machineset/machineset_controller.go}): with fewer Machines than {@code spec.replicas} it
 * creates the missing ones unless {@code cluster.x-k8s.io/disable-machine-create} is {@code "true"}; with more it
 * deletes the excess, chosen by the deletion priority of {@code machineset_deletion_order.go}. Machines already being
 * deleted count as Machines (they are deliberately not filtered out, {@code getAndAdoptMachinesForMachineSet}) and
 * come first among the victims, so they are not deleted twice and no extra Machine goes while they finish.
 */
public final class MachineSetScaling {

    private MachineSetScaling() {
    }

    /** {@code spec.deletion.order}; upstream's default ({@code ""}) is {@link #RANDOM}. */
    public enum DeletionOrder {
        RANDOM, NEWEST, OLDEST;

        /** Parses {@code Random}, {@code Newest}, {@code Oldest}; empty or absent is {@link #RANDOM}. */
        public static DeletionOrder of(String value) {
            if (value == null || value.isEmpty()) {
                return RANDOM;
            }
            return switch (value) {
                case "Random" -> RANDOM;
                case "Newest" -> NEWEST;
                case "Oldest" -> OLDEST;
                default -> throw new IllegalArgumentException(
                        "Unsupported deletion order " + value + ". Must be one of 'Random', 'Newest', or 'Oldest'");
            };
        }

        @Override
        public String toString() {
            return name().charAt(0) + name().substring(1).toLowerCase(Locale.ROOT);
        }
    }

    /**
     * One Machine of the MachineSet, as deletion priority reads it.
     *
     * @param deleting         whether it has a {@code deletionTimestamp}
     * @param markedForDeletion whether it carries {@code cluster.x-k8s.io/delete-machine}
     * @param healthy          upstream's {@code isMachineHealthy}: it has a {@code status.nodeRef}, its
     *                         {@code NodeHealthy} condition is not False and its {@code HealthCheckSucceeded} is not False
     */
    public record MachineState(String name, Instant created, boolean deleting, boolean markedForDeletion, boolean healthy) {
        public MachineState {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(created, "created");
        }
    }

    /**
     * What to do.
     *
     * @param create how many Machines to create
     * @param delete the Machines to delete now, highest priority first (Machines already being deleted are left out)
     */
    public record Decision(int create, List<String> delete) {
        public Decision {
            delete = List.copyOf(delete);
        }

        static final Decision NOTHING = new Decision(0, List.of());
    }

    private static final double MUST_DELETE = 100.0;
    private static final double SHOULD_DELETE_FIRST = 80.0;
    private static final double BETTER_DELETE = 50.0;
    private static final double COULD_DELETE = 20.0;
    private static final double MUST_NOT_DELETE = 0.0;
    private static final double SECONDS_PER_TEN_DAYS = 864000;

    public static Decision decide(int specReplicas, boolean createDisabled, List<MachineState> machines, DeletionOrder order,
            Instant now) {
        int diff = machines.size() - specReplicas;
        if (diff < 0) {
            return createDisabled ? Decision.NOTHING : new Decision(-diff, List.of());
        }
        if (diff == 0) {
            return Decision.NOTHING;
        }
        List<String> victims = prioritised(machines, order, now).stream().limit(diff)
                .filter(m -> !m.deleting()).map(MachineState::name).toList();
        return new Decision(0, victims);
    }

    /** All of {@code machines}, highest deletion priority first; equal priorities by name (upstream's {@code sortableMachines}). */
    public static List<MachineState> prioritised(List<MachineState> machines, DeletionOrder order, Instant now) {
        return machines.stream()
                .sorted(Comparator.comparingDouble((MachineState m) -> -priority(m, order, now)).thenComparing(MachineState::name))
                .toList();
    }

    /** {@code randomDeletionOrder}, {@code newestDeletionOrder}, {@code oldestDeletionOrder}. */
    static double priority(MachineState machine, DeletionOrder order, Instant now) {
        if (machine.deleting()) {
            return MUST_DELETE;
        }
        if (machine.markedForDeletion()) {
            return SHOULD_DELETE_FIRST;
        }
        // (upstream's "in-place update in progress" comes here; the double never updates in place)
        if (!machine.healthy()) {
            return BETTER_DELETE;
        }
        return switch (order) {
            case RANDOM -> COULD_DELETE;
            case OLDEST -> byAge(machine, now);
            case NEWEST -> BETTER_DELETE - byAge(machine, now);
        };
    }

    private static double byAge(MachineState machine, Instant now) {
        Duration age = Duration.between(machine.created(), now);
        if (age.isNegative()) {
            return MUST_NOT_DELETE;
        }
        double seconds = age.toNanos() / 1e9;
        return BETTER_DELETE * (1.0 - Math.exp(-seconds / SECONDS_PER_TEN_DAYS));
    }
}
