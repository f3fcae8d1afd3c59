package dev.nightshift.agent.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import dev.nightshift.agent.nodeupdate.JobContract;
import dev.nightshift.agent.nodeupdate.UpdaterJobs;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.utils.Serialization;

/**
 * What the embedded API server's request log says about node updater Jobs in one namespace: which Jobs were created
 * (and for which node), when each finished (the Job controller's status write with {@code Complete} or {@code Failed}),
 * how many of a pool ran at once, and whether an updater pod was ever left pending as unschedulable.
 */
final class UpdaterJobsSeen {

    /** A Job as created (the POST's body), with where it was created and finished in the log; finished 0 while it runs. */
    record Run(Job job, long created, long finished) {
        String node() {
            return JobContract.nodeOf(job);
        }

        String name() {
            return job.getMetadata().getName();
        }

        String pool() {
            return job.getMetadata().getLabels().get(UpdaterJobs.POOL);
        }
    }

    private final String namespace;
    private final List<RecordedRequest> log;

    UpdaterJobsSeen(String namespace, List<RecordedRequest> log) {
        this.namespace = namespace;
        this.log = log;
    }

    private String jobs() {
        return "/apis/batch/v1/namespaces/" + namespace + "/jobs";
    }

    /** Every Job created, in the order the API server accepted them. */
    List<Run> runs() {
        Map<String, Long> finished = new HashMap<>();
        for (RecordedRequest r : log) {
            if (r.isWrite() && r.succeeded() && r.resourcePath().startsWith(jobs() + "/") && r.resourcePath().endsWith("/status")
                    && !r.body().isEmpty()) {
                Job written = Serialization.unmarshal(r.body(), Job.class);
                if (finished(written)) {
                    finished.putIfAbsent(written.getMetadata().getName(), r.sequence());
                }
            }
        }
        List<Run> runs = new ArrayList<>();
        for (RecordedRequest r : log) {
            if (r.method().equals("POST") && r.succeeded() && r.resourcePath().equals(jobs())) {
                Job job = Serialization.unmarshal(r.body(), Job.class);
                long end = finished.getOrDefault(job.getMetadata().getName(), 0L);
                runs.add(new Run(job, r.sequence(), end > r.sequence() ? end : 0));
            }
        }
        return runs;
    }

    private static boolean finished(Job job) {
        return job.getStatus() != null && job.getStatus().getConditions() != null && job.getStatus().getConditions().stream()
                .anyMatch(c -> ("Complete".equals(c.getType()) || "Failed".equals(c.getType())) && "True".equals(c.getStatus()));
    }

    /** The nodes Jobs were created for, one entry per Job. */
    List<String> nodes() {
        return runs().stream().map(Run::node).toList();
    }

    /** The most Jobs of {@code pool} that ran at once: created and not yet finished, by the log's order. */
    int mostAtOnce(String pool) {
        TreeMap<Long, Integer> changes = new TreeMap<>();
        for (Run run : runs()) {
            if (pool.equals(run.pool())) {
                changes.merge(run.created(), 1, Integer::sum);
                changes.merge(run.finished() == 0 ? Long.MAX_VALUE : run.finished(), -1, Integer::sum);
            }
        }
        int running = 0;
        int most = 0;
        for (int change : changes.values()) {
            running += change;
            most = Math.max(most, running);
        }
        return most;
    }

    /** Where in the log the Job for {@code node} was created and finished, if one was. */
    Optional<Run> runOn(String node) {
        return runs().stream().filter(r -> r.node().equals(node)).findFirst();
    }

    /**
     * Fails when an updater pod was ever reported {@code PodScheduled=False} with reason {@code Unschedulable}: the
     * agent's Jobs must run on the cordoned, tainted node they are pinned to.
     */
    void assertNoPodLeftUnschedulable() {
        List<String> unschedulable = new ArrayList<>();
        for (RecordedRequest r : log) {
            if (r.isWrite() && r.succeeded() && r.resourcePath().startsWith("/api/v1/namespaces/" + namespace + "/pods/")
                    && !r.body().isEmpty() && r.body().contains("Unschedulable")) {
                Pod pod = Serialization.unmarshal(r.body(), Pod.class);
                if (pod.getStatus() != null && pod.getStatus().getConditions() != null && pod.getStatus().getConditions().stream()
                        .anyMatch(c -> "PodScheduled".equals(c.getType()) && "False".equals(c.getStatus())
                                && "Unschedulable".equals(c.getReason()))) {
                    unschedulable.add(pod.getMetadata().getName() + ": " + pod.getStatus().getConditions());
                }
            }
        }
        assertThat(unschedulable).as("updater pods the scheduler could not place").isEmpty();
    }
}
