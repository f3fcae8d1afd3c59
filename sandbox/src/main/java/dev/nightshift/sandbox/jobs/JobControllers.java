package dev.nightshift.sandbox.jobs;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.random.RandomGenerator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.nightshift.sandbox.embedded.ControllerLoop;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

import dev.nightshift.sandbox.jobs.Faults.Kind;

/**
 * A double of what runs a node updater's Job on a real cluster — the Job controller, the scheduler, the kubelet and the
 * updater in its pod — for the embedded API server, honest enough to test the {@code job} node updater against: a pod
 * runs only where kube-scheduler would put it ({@link Scheduling}: required node affinity, {@code nodeSelector},
 * taints and {@code spec.unschedulable} against its tolerations), and the node changes only as the updater would
 * change it ({@link UpdaterOrder}). See {@link JobSync} for the Job semantics followed and {@link Kubelets} for the
 * node's side. Product code for the demo and the sandbox and a fixture for tests; nothing here talks to a real cluster.
 *
 * <p>Every watch event (Jobs and pods in the namespace, Nodes) and a slow resync start one pass, one at a time. A pass
 * reads with fresh list requests, never acting on a view older than its own last write. Every request goes out with
 * User-Agent {@value #USER_AGENT}.
 */
public final class JobControllers implements AutoCloseable {

    /** The User-Agent of every request the double makes, to tell them apart in the embedded API's request log. */
    public static final String USER_AGENT = "nightshift-job-controllers";

    private static final Logger LOG = LoggerFactory.getLogger(JobControllers.class);
    private static final int SUFFIX_ALPHABET = 27;

    private final KubernetesClient client;
    private final String namespace;
    private final Clock clock;
    private final Behaviour behaviour;
    private final Faults faults;
    private final JobSync jobs;
    private final Kubelets kubelets;
    private final ControllerLoop loop;
    private final List<SharedIndexInformer<? extends HasMetadata>> informers = new ArrayList<>();

    /**
     * @param api       a client for the embedded API; the double builds its own from its configuration (own
     *                  User-Agent, no automatic retries) and closes that one in {@link #close()}
     * @param namespace where the Jobs run (the double watches Jobs and pods only there; Nodes are cluster-wide)
     * @param executor  runs the passes and the delayed steps; the double never shuts it down
     * @param random    seeds pod names and the fault rates: the same seed and the same events give the same names
     */
    public JobControllers(KubernetesClient api, String namespace, ScheduledExecutorService executor, Clock clock,
            RandomGenerator random, Behaviour behaviour) {
        this.client = new KubernetesClientBuilder().withConfig(new ConfigBuilder(api.getConfiguration())
                .withUserAgent(USER_AGENT).withRequestRetryBackoffLimit(0).build()).build();
        this.namespace = namespace;
        this.clock = clock;
        this.behaviour = behaviour;
        this.faults = new Faults(random, behaviour);
        this.loop = new ControllerLoop("Job double", LOG, executor, behaviour.resync(), () -> reconcile(clock.instant()));
        this.jobs = new JobSync(client, namespace, behaviour, () -> random.nextInt(SUFFIX_ALPHABET), this::passIn);
        this.kubelets = new Kubelets(client, namespace, behaviour, faults, this::passIn);
    }

    /** Starts watching and reconciling; returns once the watches are open. */
    public void start() {
        informers.add(client.batch().v1().jobs().inNamespace(namespace).inform(loop.trigger(), 0));
        informers.add(client.pods().inNamespace(namespace).inform(loop.trigger(), 0));
        informers.add(client.nodes().inform(loop.trigger(), 0));
        loop.start();
    }

    /** Stops watching and reconciling and closes the double's own client. Jobs, pods and nodes keep their state. */
    @Override
    public void close() {
        // After the pass under way, so that no write of the double is still producing watch events.
        loop.close(() -> {
            informers.forEach(SharedIndexInformer::close);
            client.close();
        });
    }

    /**
     * Every updater pod that starts on {@code node} from now on fails: it ends {@code Failed}, its container terminated
     * with exit code 1 and {@code terminationMessage} as its termination message. Until {@link #clearFaults(String)}.
     */
    public void failOn(String node, String terminationMessage) {
        faults.set(node, Kind.FAIL, terminationMessage, Integer.MAX_VALUE);
    }

    /** As {@link #failOn(String, String)} for the next {@code pods} pods that start on {@code node} only; later ones succeed. */
    public void failOn(String node, String terminationMessage, int pods) {
        faults.set(node, Kind.FAIL, terminationMessage, pods);
    }

    /** Every updater pod that starts on {@code node} from now on runs until deleted (its Job's deadline, if any, ends it). */
    public void neverFinishOn(String node) {
        faults.set(node, Kind.NEVER_FINISH, "", Integer.MAX_VALUE);
    }

    /**
     * Every updater pod that starts on {@code node} from now on exits 0 without changing the node (the kubelet keeps its
     * version, no reboot): the Job completes, and only the node tells the truth.
     */
    public void completeWithoutEffectOn(String node) {
        faults.set(node, Kind.NO_EFFECT, "", Integer.MAX_VALUE);
    }

    /** Pods that start on {@code node} from now on behave again (the rates of {@link Behaviour} still apply). */
    public void clearFaults(String node) {
        faults.clear(node);
    }

    /** Queues one pass now unless one is already queued. */
    void passSoon() {
        loop.passSoon();
    }

    private void passIn(Duration delay) {
        loop.passIn(delay);
    }

    private void reconcile(Instant now) {
        List<Job> allJobs = client.batch().v1().jobs().inNamespace(namespace).list().getItems();
        List<Pod> pods = client.pods().inNamespace(namespace).list().getItems();
        jobs.collectOrphans(pods, allJobs);
        for (Job job : allJobs) {
            jobs.reconcile(job, pods.stream().filter(p -> JobSync.ownedBy(p, job)).toList(), now);
        }
        List<Node> nodes = client.nodes().list().getItems();
        kubelets.reconcile(client.pods().inNamespace(namespace).list().getItems(), nodes, now);
    }
}
