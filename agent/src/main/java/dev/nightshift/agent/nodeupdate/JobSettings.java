package dev.nightshift.agent.nodeupdate;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * {@code nodeUpdates.job}: where the updater Jobs run and what they run.
 *
 * @param namespace      where the Jobs are created; its Pod Security level must allow privileged pods
 * @param image          the user's updater image
 * @param command        the updater's command, run with the contract's environment
 * @param serviceAccount the Jobs' service account; it needs no API permissions
 * @param activeDeadline how long a Job may run; empty: the pool's inPlaceUpdateTimeout in place, {@link #KUBELET_DEADLINE} for a kubelet restart
 */
public record JobSettings(String namespace, String image, List<String> command, String serviceAccount,
                          Optional<Duration> activeDeadline) {

    public static final String DEFAULT_NAMESPACE = "nightshift-node-updates";
    public static final String DEFAULT_SERVICE_ACCOUNT = "nightshift-node-updater";
    /** A kubelet restart's deadline when none is configured. */
    public static final Duration KUBELET_DEADLINE = Duration.ofMinutes(10);

    public JobSettings {
        command = List.copyOf(command);
    }
}
