package dev.nightshift.agent.run;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeSystemInfo;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatus;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * Stands in for the embedded cluster's Job controller until {@code sandbox.jobs.JobControllers}
 * exists: each new node updater Job runs for a moment, applies its effect to its node (restart:
 * the target kubeletVersion; in place: the node Ready anew after the Job), and is marked
 * {@code Complete}. Counts how many ran at once.
 */
final class TestJobController implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesClient client;
    private final String namespace;
    private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor();
    private final Set<String> seen = ConcurrentHashMap.newKeySet();
    private final AtomicInteger running = new AtomicInteger();
    final AtomicInteger mostAtOnce = new AtomicInteger();
    final List<String> ran = new ArrayList<>();

    TestJobController(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
        loop.scheduleWithFixedDelay(this::tick, 100, 100, TimeUnit.MILLISECONDS);
    }

    private void tick() {
        try {
            for (Job job : client.batch().v1().jobs().inNamespace(namespace).list().getItems()) {
                String name = job.getMetadata().getName();
                boolean finished = job.getStatus() != null && job.getStatus().getConditions() != null
                        && !job.getStatus().getConditions().isEmpty();
                if (finished || !seen.add(name)) {
                    continue;
                }
                synchronized (ran) {
                    ran.add(name);
                }
                mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
                loop.schedule(() -> run(job), 400, TimeUnit.MILLISECONDS);
            }
        } catch (RuntimeException e) {
            // The API server is going away at the end of a test.
        }
    }

    private void run(Job job) {
        String node = job.getSpec().getTemplate().getSpec().getAffinity().getNodeAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms().get(0).getMatchFields().get(0).getValues().get(0);
        String operation = env(job, "NIGHTSHIFT_OPERATION");
        try {
            JsonNode target = JSON.readTree(env(job, "NIGHTSHIFT_TARGET"));
            if (operation.equals("restart-kubelet")) {
                client.nodes().withName(node).edit(n -> {
                    if (n.getStatus().getNodeInfo() == null) {
                        n.getStatus().setNodeInfo(new NodeSystemInfo());
                    }
                    n.getStatus().getNodeInfo().setKubeletVersion("v" + target.get("kubernetesVersion").asText());
                    return n;
                });
            }
            Instant done = Instant.now();
            client.batch().v1().jobs().inNamespace(namespace).withName(job.getMetadata().getName()).editStatus(j -> {
                j.setStatus(new JobStatus());
                j.getStatus().setConditions(new ArrayList<>(List.of(new JobConditionBuilder().withType("Complete").withStatus("True")
                        .withLastTransitionTime(done.toString()).build())));
                j.getStatus().setCompletionTime(done.toString());
                j.getStatus().setSucceeded(1);
                return j;
            });
            running.decrementAndGet();
            Thread.sleep(50);
            // The kubelet reports after the Job ended: an in-place update's reboot, a restart's heartbeat.
            String after = Instant.now().toString();
            client.nodes().withName(node).edit(n -> {
                for (NodeCondition c : n.getStatus().getConditions()) {
                    if (c.getType().equals("Ready")) {
                        c.setLastHeartbeatTime(after);
                        if (operation.equals("in-place-update")) {
                            c.setLastTransitionTime(after);
                        }
                    }
                }
                return n;
            });
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String env(Job job, String name) {
        return job.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv().stream().filter(e -> e.getName().equals(name))
                .findFirst().orElseThrow().getValue();
    }

    @Override
    public void close() {
        loop.shutdownNow();
    }
}
