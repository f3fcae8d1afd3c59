package dev.nightshift.agent.nodeupdate;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import dev.nightshift.strategies.model.DesiredPool;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.batch.v1.Job;

class UpdaterJobsTest {

    private static final JobSettings SETTINGS = new JobSettings("nightshift-node-updates", "registry.example.com/updater:1.4",
            List.of("/bin/update-node"), "nightshift-node-updater", Optional.empty());
    private static final DesiredPool POOL = UpdateTargetTest.pool();

    /** Every field of the contract, for both operations: what the request log of an end-to-end test checks too. */
    static void meetsTheContract(Job job, String node, String pool, UpdateOperation operation) {
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

    @Test
    void anInPlaceJobMeetsTheContractWithThePoolsHashesAndTarget() {
        Job job = UpdaterJobs.build(SETTINGS, UpdateOperation.IN_PLACE, POOL, "web-1", "v1.31.4");

        meetsTheContract(job, "web-1", "web", UpdateOperation.IN_PLACE);
        assertThat(job.getMetadata().getName()).isEqualTo("nightshift-in-place-web-1-" + POOL.rollHash().value().substring(0, 10));
        assertThat(job.getMetadata().getNamespace()).isEqualTo("nightshift-node-updates");
        assertThat(job.getMetadata().getLabels()).containsEntry(UpdaterJobs.TARGET_HASH, POOL.rollHash().value());
        Container c = job.getSpec().getTemplate().getSpec().getContainers().get(0);
        assertThat(c.getImage()).isEqualTo("registry.example.com/updater:1.4");
        assertThat(c.getCommand()).containsExactly("/bin/update-node");
        assertThat(job.getSpec().getTemplate().getSpec().getServiceAccountName()).isEqualTo("nightshift-node-updater");
        Map<String, String> env = c.getEnv().stream().collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue));
        assertThat(env).containsEntry("NIGHTSHIFT_ROLL_HASH", POOL.rollHash().value())
                .containsEntry("NIGHTSHIFT_KUBELET_HASH", POOL.kubeletHash().value())
                .containsEntry("NIGHTSHIFT_TARGET", UpdateTarget.json(POOL.spec()));
        assertThat(job.getSpec().getActiveDeadlineSeconds())
                .isEqualTo(POOL.spec().pool().machineControllerManager().inPlaceUpdateTimeout().toSeconds());
    }

    @Test
    void aKubeletRestartIsNamedByTheKubeletHashAndGetsTenMinutesUnlessConfigured() {
        Job job = UpdaterJobs.build(SETTINGS, UpdateOperation.RESTART_KUBELET, POOL, "web-1", "");

        meetsTheContract(job, "web-1", "web", UpdateOperation.RESTART_KUBELET);
        assertThat(job.getMetadata().getName()).isEqualTo("nightshift-kubelet-web-1-" + POOL.kubeletHash().value().substring(0, 10));
        assertThat(job.getSpec().getActiveDeadlineSeconds()).isEqualTo(600);
        JobSettings configured = new JobSettings("u", "i", List.of("c"), "sa", Optional.of(Duration.ofMinutes(30)));
        assertThat(UpdaterJobs.build(configured, UpdateOperation.RESTART_KUBELET, POOL, "web-1", "").getSpec().getActiveDeadlineSeconds())
                .isEqualTo(1800);
        assertThat(UpdaterJobs.build(configured, UpdateOperation.IN_PLACE, POOL, "web-1", "").getSpec().getActiveDeadlineSeconds())
                .isEqualTo(1800);
    }

    @Test
    void aNodeWhoseNameIsNoLabelValueIsNamedInFullInTheAffinityAndTheEnvironment() {
        String node = "ip-10-0-0-1.eu-central-1.compute.internal-with-a-suffix-that-is-long";
        Job job = UpdaterJobs.build(SETTINGS, UpdateOperation.IN_PLACE, POOL, node, "");

        meetsTheContract(job, node, "web", UpdateOperation.IN_PLACE);
        assertThat(job.getMetadata().getAnnotations()).containsEntry(UpdaterJobs.NODE, node);
    }
}
