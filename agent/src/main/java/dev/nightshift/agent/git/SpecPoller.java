package dev.nightshift.agent.git;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecError;
import dev.nightshift.spec.load.SpecLoader;

/**
 * One poll of the spec repository: look at the remote head, and only when it moved fetch the
 * commit, load and validate its specs, and hand them on. A commit with invalid specs is reported
 * and never handed on; the last good spec stays current until a good commit comes. With
 * {@code git.verify}, a commit is verified before anything of it is read, and a commit refused is
 * likewise reported and never handed on.
 */
public final class SpecPoller {

    private static final Logger LOG = LoggerFactory.getLogger(SpecPoller.class);

    private final GitSource source;
    private final SpecLoader loader;
    private final Optional<String> cluster;
    private final SpecListener listener;
    private final Clock clock;
    /** The commit in force as the cluster records it, for the first poll of an agent that handed on nothing yet. */
    private final Supplier<Optional<String>> recordedInForce;
    private String lastSeenHead;
    /**
     * Read by {@code /readyz} and {@code /status} without the poll's lock: a poll may wait on the
     * network for long, and a probe must not wait with it.
     */
    private volatile SpecRevision lastGood;
    private volatile List<SpecError> currentErrors = List.of();
    /** What {@code git.verify} said of the newest commit; empty without it. */
    private volatile Optional<CommitCheck> lastCheck = Optional.empty();

    public SpecPoller(GitSource source, SpecLoader loader, Optional<String> cluster, SpecListener listener, Clock clock) {
        this(source, loader, cluster, listener, clock, Optional::empty);
    }

    /**
     * @param recordedInForce the commit the cluster's records say is in force (asked only while this
     *                        poller has handed nothing on): a restarted agent refuses a rewind too
     */
    public SpecPoller(GitSource source, SpecLoader loader, Optional<String> cluster, SpecListener listener, Clock clock,
                      Supplier<Optional<String>> recordedInForce) {
        this.source = source;
        this.loader = loader;
        this.cluster = cluster;
        this.listener = listener;
        this.clock = clock;
        this.recordedInForce = recordedInForce;
    }

    /** Polls once; safe to call from the scheduler and the webhook at the same time. */
    public synchronized PollResult poll() {
        String head;
        SpecSnapshot snapshot;
        try {
            head = source.remoteHead();
            if (head.equals(lastSeenHead)) {
                return PollResult.UNCHANGED;
            }
            Optional<CommitCheck> check = source.verify(head, inForce());
            if (check.isPresent() && !check.get().verified()) {
                lastSeenHead = head;
                lastCheck = check;
                LOG.error("{}", check.get().refusal());
                listener.onUnverifiedCommit(check.get());
                return PollResult.UNVERIFIED;
            }
            check.flatMap(CommitCheck::rewindNotice).ifPresent(LOG::warn);
            check.ifPresent(c -> LOG.info("commit {} verified: signed by {}", head, c.detail()));
            snapshot = source.snapshot(head);
            lastCheck = check;
        } catch (GitSourceException e) {
            LOG.warn("spec poll failed: {}", e.getMessage());
            listener.onPollFailed(e);
            return PollResult.FAILED;
        }
        lastSeenHead = head;
        LoadResult loaded = loader.load(snapshot.files());
        List<SpecError> errors = new ArrayList<>(loaded.errors());
        if (loaded.valid() && cluster.isPresent() && loaded.specs().cluster(cluster.get()).isEmpty()) {
            errors.add(new SpecError("", 1, 1, "", "no Cluster named \"" + cluster.get() + "\" in commit " + head));
        }
        if (!errors.isEmpty()) {
            currentErrors = List.copyOf(errors);
            LOG.error("commit {} has invalid specs and is not applied; keeping {}:\n  {}", head,
                    lastGood == null ? "no spec" : "commit " + lastGood.commit(),
                    String.join("\n  ", errors.stream().map(SpecError::toString).toList()));
            listener.onInvalidSpec(head, currentErrors);
            return PollResult.INVALID_SPEC;
        }
        currentErrors = List.of();
        lastGood = new SpecRevision(head, cluster.map(loaded.specs()::onlyCluster).orElse(loaded.specs()), clock.instant());
        LOG.info("commit {} loaded: {} cluster(s), {} pool(s)", head, lastGood.specs().clusters().size(),
                lastGood.specs().pools().size());
        listener.onSpec(lastGood);
        return PollResult.NEW_SPEC;
    }

    /** The commit in force: the last one handed on, else the one the cluster's records name. */
    private Optional<String> inForce() {
        return lastGood != null ? Optional.of(lastGood.commit()) : recordedInForce.get();
    }

    /** What {@code git.verify} said of the newest commit; empty without it. Never waits for a poll in progress. */
    public Optional<CommitCheck> lastCheck() {
        return lastCheck;
    }

    /** Never waits for a poll in progress. */
    public Optional<SpecRevision> lastGood() {
        return Optional.ofNullable(lastGood);
    }

    /** The errors of the newest commit, empty when it is valid; never waits for a poll in progress. */
    public List<SpecError> currentErrors() {
        return currentErrors;
    }
}
