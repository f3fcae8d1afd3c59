package dev.nightshift.agent.notify;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.nightshift.agent.reconcile.ReconcileReport;
import dev.nightshift.spec.load.SpecError;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * Commit statuses and events, fed by what the agent already reports (each reconcile's report, invalid and refused
 * commits) and handed to one {@link DeliveryQueue} per destination. Its methods return at once: sending happens on the
 * destinations' own threads, so a slow or failing destination never delays a reconcile, and never stops a rollout.
 * Only while this replica leads is anything derived or sent.
 */
public final class Notifier implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Notifier.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Counts each result by destination: {@code nightshift_notifications_total{destination,result}}. */
    public interface Counter {
        void count(String destination, String result);
    }

    private final String cluster;
    private final Ledger ledger;
    private final RolloutObserver observer;
    private final List<DeliveryQueue> queues = new ArrayList<>();
    private final Clock clock;
    private final BooleanSupplier leading;
    private final Object deriving = new Object();
    /** How long closing waits for a delivery under way: its request's timeout, and a moment to write it down. */
    private final java.time.Duration grace;
    /** The ledger is read again before the first notice of every term as leader. */
    private boolean loaded;

    Notifier(NotificationSettings settings, String cluster, List<Sender> senders, LedgerStore store, Function<String, Timer> timers,
             Backoff backoff, Clock clock, BooleanSupplier leading, Counter counter) {
        this.cluster = cluster;
        this.ledger = new Ledger(store);
        this.observer = new RolloutObserver(cluster, settings.announce());
        this.clock = clock;
        this.leading = leading;
        this.grace = settings.timeout().plusSeconds(5);
        DeliveryQueue.Listener listener = new DeliveryQueue.Listener() {
            @Override
            public void counted(String destination, DeliveryQueue.Result result) {
                counter.count(destination, result.label());
            }

            @Override
            public void delivered(String destination, Notice notice) {
                LOG.debug("{} delivered to {}", notice.key(), destination);
            }
        };
        for (Sender s : senders) {
            queues.add(new DeliveryQueue(s, settings.queueSize(), backoff, timers.apply(s.destination()), clock, ledger, listener, leading));
        }
    }

    /**
     * The agent's notifier: the destinations of {@code settings}, the ledger in the ConfigMap beside the pool records in
     * {@code namespace}, written with {@code client} (the agent's fenced one).
     *
     * @throws IllegalArgumentException when a secret's file is missing or empty (named, never its content)
     */
    public static Notifier start(NotificationSettings settings, String cluster, KubernetesClient client, String namespace, Clock clock,
                                 BooleanSupplier leading, Counter counter) {
        checkSecrets(settings);
        return new Notifier(settings, cluster, senders(settings, JsonPost.of(settings.timeout())),
                new ConfigMapLedgerStore(client, namespace), ExecutorTimer::new, Backoff.DEFAULT, clock, leading, counter);
    }

    /** Every destination's sender, in the configuration's order: the forge, the webhooks ({@code webhook-1}, …), Slack. */
    static List<Sender> senders(NotificationSettings settings, JsonPost post) {
        List<Sender> senders = new ArrayList<>();
        settings.commitStatus().ifPresent(t -> senders.add(new ForgeStatuses(t, settings.statusUrl(), post)));
        for (int i = 0; i < settings.webhooks().size(); i++) {
            senders.add(new Webhook("webhook-" + (i + 1), settings.webhooks().get(i), post));
        }
        settings.slack().ifPresent(t -> senders.add(new Slack(t, post)));
        return senders;
    }

    /** The destinations' names, as {@code nightshift_notifications_total} labels them, in the order of {@link #senders}. */
    public static List<String> destinations(NotificationSettings settings) {
        List<String> names = new ArrayList<>();
        settings.commitStatus().ifPresent(t -> names.add(ForgeStatuses.DESTINATION));
        for (int i = 0; i < settings.webhooks().size(); i++) {
            names.add("webhook-" + (i + 1));
        }
        settings.slack().ifPresent(t -> names.add("slack"));
        return names;
    }

    private static void checkSecrets(NotificationSettings settings) {
        settings.commitStatus().ifPresent(t -> readable(t.tokenFile(), "notifications.commitStatus." + t.forge().label() + ".tokenFile"));
        for (int i = 0; i < settings.webhooks().size(); i++) {
            readable(settings.webhooks().get(i).secretFile(), "notifications.webhooks[" + i + "].secretFile");
        }
        settings.slack().ifPresent(t -> readable(t.webhookUrlFile(), "notifications.slack.webhookUrlFile"));
    }

    private static void readable(Path file, String field) {
        try {
            if (Files.readString(file, StandardCharsets.UTF_8).isBlank()) {
                throw new IllegalArgumentException(field + " " + file + ": the file is empty");
            }
        } catch (IOException e) {
            throw new IllegalArgumentException(field + " " + file + ": cannot read the file (" + e.getClass().getSimpleName() + ")");
        }
    }

    /**
     * A reconcile's report (on the reconcile thread): its events and statuses are queued.
     *
     * @param latest the newest commit polled: refused when the report says the newest was not taken
     */
    public void onReport(ReconcileReport report, Optional<String> latest) {
        offer(() -> observer.observe(report, latest));
    }

    /** The newest commit's specs are invalid (on the poller's thread). */
    public void onInvalidSpec(String commit, List<SpecError> errors) {
        offer(() -> observer.specInvalid(commit, errors, clock.instant()));
    }

    /** {@code git.verify} refused the newest commit (on the poller's thread). */
    public void onUnverified(String commit, String reason) {
        offer(() -> observer.unverified(commit, reason, clock.instant()));
    }

    /** A term as leader ended: forget it; the next one reads the ledger again. */
    public void standBy() {
        synchronized (deriving) {
            observer.forget();
            loaded = false;
        }
    }

    private void offer(java.util.function.Supplier<List<Notice>> derive) {
        if (queues.isEmpty() || !leading.getAsBoolean()) {
            return;
        }
        List<Notice> notices;
        synchronized (deriving) {
            if (!loaded) {
                ledger.load();
                observer.seed(ledger.keys(), ledger.statuses());
                loaded = true;
            }
            notices = derive.get();
        }
        for (Notice n : notices) {
            for (DeliveryQueue q : queues) {
                q.offer(n);
            }
        }
    }

    /** {@code /status}'s {@code notifications}: each destination's queue and counts, its last error; never a URL or secret. */
    public ObjectNode status() {
        ObjectNode o = JSON.createObjectNode();
        o.put("cluster", cluster);
        ArrayNode destinations = o.putArray("destinations");
        for (DeliveryQueue q : queues) {
            DeliveryQueue.State s = q.state();
            ObjectNode d = destinations.addObject();
            d.put("destination", s.destination());
            d.put("queued", s.queued());
            d.put("delivered", s.delivered());
            d.put("failed", s.failed());
            d.put("dropped", s.dropped());
            d.put("lastError", s.lastError().orElse(null));
            d.put("lastFailure", s.lastFailure().orElse(null));
            d.put("lastDelivered", s.lastDelivered().map(Object::toString).orElse(null));
        }
        return o;
    }

    /**
     * Starts no other delivery and lets those under way finish (each within its timeout) and be written down, all
     * destinations at once.
     */
    @Override
    public void close() {
        queues.forEach(DeliveryQueue::close);
        queues.forEach(q -> q.awaitClosed(grace));
    }
}
