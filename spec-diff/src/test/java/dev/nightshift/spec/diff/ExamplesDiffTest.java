package dev.nightshift.spec.diff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.spec.model.SpecSet;

/** examples/multi to examples/multi-next: an image bump, a Kubernetes patch, a label and a size change. */
class ExamplesDiffTest {

    private static final Path MULTI = Path.of("../examples/multi");
    private static final Path MULTI_NEXT = Path.of("../examples/multi-next");

    private static SpecSet load(Path dir) {
        LoadResult result = new SpecLoader().load(dir);
        assertThat(result.errors()).as("errors loading %s", dir).isEmpty();
        return result.specs();
    }

    private static PoolDecision decision(DiffReport report, String pool) {
        return report.pools().stream().filter(d -> d.pool().equals(pool)).findFirst().orElseThrow();
    }

    private final DiffReport report = new SpecDiff().diff(load(MULTI), load(MULTI_NEXT));

    @Test
    void everyPoolGetsItsAction() {
        assertThat(report.pools()).extracting(PoolDecision::cluster, PoolDecision::pool, PoolDecision::action).containsExactly(
                tuple("demo", "bastion", PoolAction.KUBELET_RESTART),
                tuple("demo", "batch", PoolAction.KUBELET_RESTART),
                tuple("demo", "cpu-worker", PoolAction.ROLL),
                tuple("demo", "gpu-worker", PoolAction.IN_PLACE));
        assertThat(report.anyRejected()).isFalse();
    }

    @Test
    void theBastionOnlyGetsTheKubernetesPatch() {
        assertThat(decision(report, "bastion").reasons()).extracting(Reason::path, Reason::oldValue, Reason::newValue, Reason::effect)
                .containsExactly(tuple("spec.kubernetes.version", "1.31.4", "1.31.5", Effect.KUBELET_RESTART));
    }

    @Test
    void batchListsItsNewMaximumBesideTheKubernetesPatch() {
        assertThat(decision(report, "batch").reasons()).extracting(Reason::path, Reason::oldValue, Reason::newValue, Reason::effect)
                .containsExactlyInAnyOrder(
                        tuple("spec.kubernetes.version", "1.31.4", "1.31.5", Effect.KUBELET_RESTART),
                        tuple("spec.maximum", "10", "12", Effect.NONE));
    }

    @Test
    void cpuWorkerRollsForItsImageAndListsTheKubeletAndLabelChangesToo() {
        PoolDecision cpu = decision(report, "cpu-worker");

        assertThat(cpu.reasons()).extracting(Reason::path, Reason::oldValue, Reason::newValue, Reason::effect).containsExactlyInAnyOrder(
                tuple("spec.machine.image.version", "1631.0.0", "1632.0.0", Effect.ROLL),
                tuple("spec.kubernetes.version", "1.31.4", "1.31.5", Effect.KUBELET_RESTART),
                tuple("spec.labels.tier", "", "frontend", Effect.PROPAGATE));
        assertThat(cpu.rollHashNew()).isNotEqualTo(cpu.rollHashOld());
        assertThat(cpu.kubeletHashNew()).isNotEqualTo(cpu.kubeletHashOld());
    }

    @Test
    void gpuWorkerUpdatesInPlaceToACatalogVersion() {
        PoolDecision gpu = decision(report, "gpu-worker");

        assertThat(gpu.reasons()).extracting(Reason::path, Reason::oldValue, Reason::newValue, Reason::effect).containsExactlyInAnyOrder(
                tuple("spec.machine.image.version", "1631.0.0", "1632.0.0", Effect.IN_PLACE),
                tuple("spec.kubernetes.version", "1.31.4", "1.31.5", Effect.KUBELET_RESTART));
        assertThat(gpu.forceTokenUsed()).isEmpty();
    }

    @Test
    void poolsWithOnlyAPatchKeepTheirRollHash() {
        assertThat(report.pools()).filteredOn(d -> d.action() == PoolAction.KUBELET_RESTART)
                .hasSize(2)
                .allSatisfy(d -> assertThat(d.rollHashNew()).isEqualTo(d.rollHashOld()));
    }

    @Test
    void diffingTheExampleAgainstItselfGivesNoneForEveryPool() {
        DiffReport same = new SpecDiff().diff(load(MULTI), load(MULTI));

        assertThat(same.pools()).extracting(PoolDecision::action).containsOnly(PoolAction.NONE);
        assertThat(same.pools()).allSatisfy(d -> assertThat(d.reasons()).isEmpty());
    }

    @Test
    void goingBackFromMultiNextToMultiIsAPatchDowngradeAndRejectsEveryPool() {
        DiffReport back = new SpecDiff().diff(load(MULTI_NEXT), load(MULTI));

        assertThat(back.pools()).extracting(PoolDecision::action).containsOnly(PoolAction.REJECTED);
        assertThat(back.pools()).allSatisfy(d -> assertThat(d.reasons()).extracting(Reason::path, Reason::effect)
                .contains(tuple("spec.kubernetes.version", Effect.REJECTED)));
    }

    @Test
    void anUnfinishedInPlaceUpdateOfGpuWorkerBlocksItsImageBump() {
        InPlaceHistory history = new InPlaceHistory(java.util.Map.of(InPlaceHistory.key("demo", "gpu-worker"),
                new InPlaceHistory.Entry(true, java.util.Set.of())));

        DiffReport blocked = new SpecDiff().diff(load(MULTI), load(MULTI_NEXT), history);

        assertThat(blocked.pools()).extracting(PoolDecision::pool, PoolDecision::action).containsExactly(
                tuple("bastion", PoolAction.KUBELET_RESTART),
                tuple("batch", PoolAction.KUBELET_RESTART),
                tuple("cpu-worker", PoolAction.ROLL),
                tuple("gpu-worker", PoolAction.REJECTED));
    }
}
