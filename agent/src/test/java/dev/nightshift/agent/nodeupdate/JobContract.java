package dev.nightshift.agent.nodeupdate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.batch.v1.Job;

/** The node updater Job's contract, as tests check it: on a built Job, or on one read back from the request log. */
public final class JobContract {

    private JobContract() {
    }

    /** Every field of the contract, for both operations: what the request log of an end-to-end test checks too. */
    public static void meetsTheContract(Job job, String node, String pool, UpdateOperation operation) {
        assertThat(job.getMetadata().getName()).hasSizeLessThanOrEqualTo(63)
                .startsWith("nightshift-" + operation.nameWord() + "-").matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
        assertThat(job.getMetadata().getLabels()).containsEntry(UpdaterJobs.POOL, pool)
                .containsEntry(UpdaterJobs.OPERATION, operation.value()).containsKey(UpdaterJobs.TARGET_HASH)
                .containsEntry(UpdaterJobs.NODE, JobNames.labelValue(node));
        assertThat(job.getSpec().getBackoffLimit()).isEqualTo(2);
        assertThat(job.getSpec().getTtlSecondsAfterFinished()).isGreaterThanOrEqualTo(3600);
        assertThat(job.getSpec().getActiveDeadlineSeconds()).isPositive();
        PodSpec pod = job.getSpec().getTemplate().getSpec();
        List<NodeSelectorRequirement> fields = pod.getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms().get(0).getMatchFields();
        assertThat(fields).singleElement().satisfies(f -> {
            assertThat(f.getKey()).isEqualTo("metadata.name");
            assertThat(f.getOperator()).isEqualTo("In");
            assertThat(f.getValues()).containsExactly(node);
        });
        assertThat(pod.getTolerations()).singleElement().satisfies(t -> {
            assertThat(t.getOperator()).isEqualTo("Exists");
            assertThat(t.getKey()).isNull();
            assertThat(t.getEffect()).isNull();
        });
        assertThat(pod.getHostPID()).isTrue();
        assertThat(pod.getRestartPolicy()).isEqualTo("Never");
        assertThat(pod.getVolumes()).singleElement().satisfies(v -> assertThat(v.getHostPath().getPath()).isEqualTo("/"));
        Container c = pod.getContainers().get(0);
        assertThat(pod.getContainers()).hasSize(1);
        assertThat(c.getSecurityContext().getPrivileged()).isTrue();
        assertThat(c.getTerminationMessagePolicy()).isEqualTo("FallbackToLogsOnError");
        assertThat(c.getVolumeMounts()).singleElement().satisfies(m -> {
            assertThat(m.getName()).isEqualTo(pod.getVolumes().get(0).getName());
            assertThat(m.getMountPath()).isEqualTo("/host");
        });
        Map<String, String> env = c.getEnv().stream().collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue));
        assertThat(env).containsOnlyKeys("NIGHTSHIFT_OPERATION", "NIGHTSHIFT_NODE", "NIGHTSHIFT_POOL", "NIGHTSHIFT_ROLL_HASH",
                "NIGHTSHIFT_KUBELET_HASH", "NIGHTSHIFT_TARGET");
        assertThat(env).containsEntry("NIGHTSHIFT_OPERATION", operation.value()).containsEntry("NIGHTSHIFT_NODE", node)
                .containsEntry("NIGHTSHIFT_POOL", pool);
        assertThat(env.get("NIGHTSHIFT_TARGET")).contains("\"kubernetesVersion\"").contains("\"machineImage\"");
    }


    /** The node a Job is pinned to, from its affinity. */
    public static String nodeOf(Job job) {
        return job.getSpec().getTemplate().getSpec().getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms().get(0).getMatchFields().get(0).getValues().get(0);
    }
}
