package dev.nightshift.agent.kube;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

/**
 * Every Event the agent records goes through here: core/v1 Events, which {@code kubectl get events}
 * and {@code kubectl describe node} read on every cluster, with a typed reason, the reporting
 * component and instance, and a note cut to 1 KiB. An Event repeated on one object (same reason and
 * note) is counted on one Event object ({@code count}, {@code lastTimestamp}) instead of flooding the
 * namespace: its name is derived from what it says, so a restarted agent counts on the same object.
 * Recording never fails the caller: an Event that cannot be written is logged.
 *
 * <p>In the agent ({@link #onItsOwnThread}) recording never makes the caller wait either: an Event is written (one to
 * three requests: create, or read and count again) on a thread of its own, in the order recorded, as client-go's
 * recorder does. A reconcile recorded an Event per cordon and per deletion and waited for each; ten pools rolling at
 * once spent a quarter of their reconciles' requests on Events. At most {@value #PENDING} wait to be written; more are
 * dropped and logged (an API server that cannot take Events must not fill the agent's memory).
 */
public final class EventRecorder implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EventRecorder.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    public static final String COMPONENT = "nightshift";
    /** The longest note, in bytes of UTF-8, as Kubernetes' own event recorder keeps it. */
    public static final int MAX_NOTE_BYTES = 1024;

    /** Why an Event is recorded; the name is the Event's reason. */
    public enum Reason {
        /** A node is replaced by a new machine for its pool's target. */
        NodeReplacing("Normal"),
        /** A node is updated in place for its pool's target. */
        NodeUpdatingInPlace("Normal"),
        /** A node's kubelet is restarted for its pool's target. */
        KubeletRestarting("Normal"),
        /** A PodDisruptionBudget refused an eviction of a drain. */
        EvictionBlocked("Warning"),
        /** A pod was deleted past its budget (onEvictionBlocked: ForceDelete). */
        PodForceDeleted("Warning"),
        /** A node unhealthy for longer than its healthTimeout is replaced. */
        NodeFailed("Warning"),
        /** A node's in-place update or kubelet restart failed (the updater's message); the pool stops there. */
        NodeUpdateFailed("Warning"),
        /** A commit's specs are invalid; the last good spec stays in force. */
        InvalidSpec("Warning"),
        /** git.verify refused a commit (signature missing, bad or not allowed, or a rewind); the last good spec stays in force. */
        UnverifiedCommit("Warning"),
        /** A pool's machine provider failed (a listing, a settle): the pool is held for the reconcile, the others go on. */
        ProviderFailed("Warning"),
        /** A pool's rollout halted: a health check failed or could not be judged for the soak, or maxFailedMachines was reached. */
        RolloutHalted("Warning"),
        /** A halted pool (onFailure: Rollback) went back to the spec it was last fully current at; the failed revision is refused. */
        RolledBack("Warning");

        private final String type;

        Reason(String type) {
            this.type = type;
        }

        public String type() {
            return type;
        }
    }

    /** The object an Event is about. */
    public record Regarding(String apiVersion, String kind, String namespace, String name) {

        public static Regarding node(String name) {
            return new Regarding("v1", "Node", null, name);
        }

        public static Regarding namespace(String name) {
            return new Regarding("v1", "Namespace", null, name);
        }
    }

    /** Events recorded and not yet written, at most, on a recorder of its own thread. */
    static final int PENDING = 1000;

    private final KubernetesClient client;
    private final Clock clock;
    private final String instance;
    /** Where the writes run: in the caller, or on the recorder's thread. */
    private final Executor writes;

    /**
     * Writes each Event in the caller, before {@link #record} returns.
     *
     * @param instance this replica's name, the Events' {@code reportingInstance}
     */
    public EventRecorder(KubernetesClient client, Clock clock, String instance) {
        this(client, clock, instance, Runnable::run);
    }

    /** @param writes runs each Event's write, in the order recorded; closed with the recorder when an {@link ExecutorService} */
    public EventRecorder(KubernetesClient client, Clock clock, String instance, Executor writes) {
        this.client = client;
        this.clock = clock;
        this.instance = instance;
        this.writes = writes;
    }

    /** The agent's: each Event written on a thread of its own ({@code nightshift-events}), the caller never waiting. */
    public static EventRecorder onItsOwnThread(KubernetesClient client, Clock clock, String instance) {
        ThreadPoolExecutor thread = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(PENDING), r -> {
            Thread t = new Thread(r, "nightshift-events");
            t.setDaemon(true);
            return t;
        }, (dropped, executor) -> {
            if (!executor.isShutdown()) {
                LOG.warn("an Event was dropped: {} Events wait to be written already", PENDING);
            }
        });
        return new EventRecorder(client, clock, instance, thread);
    }

    /**
     * Records an Event in {@code namespace} ({@code default} for cluster-scoped objects, as Kubernetes
     * does), or counts it again on the Event already saying the same about the same object.
     */
    public void record(String namespace, Regarding regarding, Reason reason, String note) {
        String message = cut(note);
        String name = name(regarding, reason, message);
        // When it happened, not when it is written.
        String now = clock.instant().toString();
        writes.execute(() -> write(namespace, regarding, reason, message, name, now));
    }

    private void write(String namespace, Regarding regarding, Reason reason, String message, String name, String now) {
        try {
            try {
                client.v1().events().inNamespace(namespace).resource(new EventBuilder()
                        .withNewMetadata().withName(name).withNamespace(namespace).endMetadata()
                        .withNewInvolvedObject().withApiVersion(regarding.apiVersion()).withKind(regarding.kind())
                        .withNamespace(regarding.namespace()).withName(regarding.name()).endInvolvedObject()
                        .withReason(reason.name()).withType(reason.type()).withMessage(message).withCount(1)
                        .withFirstTimestamp(now).withLastTimestamp(now)
                        .withNewSource().withComponent(COMPONENT).withHost(instance).endSource()
                        .withReportingComponent(COMPONENT).withReportingInstance(instance).build()).create();
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409) {
                    throw e;
                }
            }
            Event existing = client.v1().events().inNamespace(namespace).withName(name).get();
            int count = existing == null || existing.getCount() == null ? 1 : existing.getCount();
            ObjectNode patch = JSON.createObjectNode();
            patch.put("count", count + 1);
            patch.put("lastTimestamp", now);
            patch.put("reportingInstance", instance);
            client.v1().events().inNamespace(namespace).withName(name).patch(PatchContext.of(PatchType.JSON_MERGE), patch.toString());
        } catch (RuntimeException e) {
            LOG.warn("cannot record the {} Event on {} {}: {}", reason, regarding.kind(), regarding.name(), e.getMessage());
        }
    }

    /** Events recorded are written (within 10 s) before it returns; none is taken after. */
    @Override
    public void close() {
        if (writes instanceof ExecutorService thread) {
            thread.shutdown();
            try {
                if (!thread.awaitTermination(10, TimeUnit.SECONDS)) {
                    LOG.warn("{} Event(s) not written at close", thread.shutdownNow().size());
                }
            } catch (InterruptedException e) {
                thread.shutdownNow();
                Thread.currentThread().interrupt();
            }
        }
    }

    /** An Event on a node, in {@code default}. */
    public void node(String node, Reason reason, String note) {
        record("default", Regarding.node(node), reason, note);
    }

    /** The note cut to {@link #MAX_NOTE_BYTES} of UTF-8, never inside a character, marked with an ellipsis when cut. */
    static String cut(String note) {
        if (note.getBytes(StandardCharsets.UTF_8).length <= MAX_NOTE_BYTES) {
            return note;
        }
        String ellipsis = "…";
        int budget = MAX_NOTE_BYTES - ellipsis.getBytes(StandardCharsets.UTF_8).length;
        StringBuilder kept = new StringBuilder();
        int used = 0;
        for (int i = 0; i < note.length(); ) {
            int cp = note.codePointAt(i);
            int size = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8).length;
            if (used + size > budget) {
                break;
            }
            kept.appendCodePoint(cp);
            used += size;
            i += Character.charCount(cp);
        }
        return kept + ellipsis;
    }

    /** {@code <object>.<hash of what it says>}: the same Event on the same object always has the same name. */
    static String name(Regarding regarding, Reason reason, String message) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(String.join("\n", regarding.kind(),
                    Optional.ofNullable(regarding.namespace()).orElse(""), regarding.name(), reason.name(), message)
                    .getBytes(StandardCharsets.UTF_8));
            String object = regarding.name().length() > 200 ? regarding.name().substring(0, 200) : regarding.name();
            return object + "." + HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
