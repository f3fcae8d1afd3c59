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
import io.fabric8.kubernetes.api.model.batch.v1.Job;

class UpdaterJobsTest {

    private static final JobSettings SETTINGS = new JobSettings("nightshift-node-updates", "registry.example.com/updater:1.4",
            List.of("/bin/update-node"), "nightshift-node-updater", Optional.empty());
    private static final DesiredPool POOL = UpdateTargetTest.pool();

    @Test
    void anInPlaceJobMeetsTheContractWithThePoolsHashesAndTarget() {
        Job job = UpdaterJobs.build(SETTINGS, UpdateOperation.IN_PLACE, POOL, "web-1", "v1.31.4");

        JobContract.meetsTheContract(job, "web-1", "web", UpdateOperation.IN_PLACE);
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

        JobContract.meetsTheContract(job, "web-1", "web", UpdateOperation.RESTART_KUBELET);
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

        JobContract.meetsTheContract(job, node, "web", UpdateOperation.IN_PLACE);
        assertThat(job.getMetadata().getAnnotations()).containsEntry(UpdaterJobs.NODE, node);
    }
}
